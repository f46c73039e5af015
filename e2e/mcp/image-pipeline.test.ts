import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticRenditionInputs } from '../fixtures/rendition-inputs.ts';
import { blobShaOf, demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

/**
 * Renditions as the import path made them before issue 15 (one decode of the original per rendition),
 * recorded from that code on these inputs: original format and upright size, thumbnail, WebP srcset
 * (with `alpha` when the WebP kept an alpha channel), fallback. The decode-once pipeline must give the
 * same formats and widths; a height may differ by 1 px, because the old sizes came from libjpeg's
 * shrink-on-load rounding (e.g. 5117×3411 at 640 px wide: 426 then, 427 now, 426.6 exactly) and the
 * new ones are the aspect ratio rounded to the nearest px.
 */
const TODAY: [string, string][] = [
  ['text/craft-beer.jpg', 'jpeg 6000x4000 | thumb 320x213 | webp 320x213 640x427 960x640 1280x853 1920x1280 2560x1707 | fallback none'],
  [
    'text/handwritten-notes.jpg',
    'jpeg 5117x3411 | thumb 320x213 | webp 320x213 640x426 960x639 1280x853 1920x1280 2560x1706 | fallback none',
  ],
  ['metadata/portrait-orientation-6.jpg', 'jpeg 840x700 | thumb 320x267 | webp 320x267 640x533 840x700 | fallback none'],
  [
    'formats/IMG_2682.heic',
    'png 4032x3024 from heic | thumb 320x240 | webp 320x240 640x480 960x720 1280x960 1920x1440 2560x1920 | fallback none',
  ],
  ['formats/8bit-sRGB.avif', 'avif 1617x1080 | thumb 320x214 | webp 320x214 640x427 960x641 1280x855 1617x1080 | fallback jpeg 1617x1080'],
  ['formats/denali.webp', 'webp 600x315 | thumb 320x168 | webp 320x168 600x315 | fallback jpeg 600x315'],
  ['formats/density_plot.png', 'png 800x800 | thumb 320x320 | webp 320x320 640x640 800x800 | fallback none'],
  ['nature/cyclamen_persicum.jpg', 'jpeg 512x848 | thumb 193x320 | webp 320x530 512x848 | fallback none'],
  ['metadata/thompson-springs.jpg', 'jpeg 150x103 | thumb 150x103 | webp 150x103 | fallback none'],
  ['alpha-odd.png', 'png 333x777 | thumb 137x320 | webp 320x747 333x777 alpha | fallback none'],
  [
    'alpha-wide.webp',
    'webp 3001x999 | thumb 320x107 | webp 320x107 640x213 960x320 1280x426 1920x639 2560x852 alpha | fallback png 2560x852',
  ],
  ['alpha.avif', 'avif 700x500 | thumb 320x229 | webp 320x229 640x457 700x500 alpha | fallback png 700x500'],
  ['animated.gif', 'gif 97x61 | thumb 97x61 | webp 97x61 | fallback none'],
  ['animated.webp', 'webp 97x61 | thumb 97x61 | webp 97x61 | fallback jpeg 97x61'],
  ['deep-16bit.png', 'png 1000x641 | thumb 320x205 | webp 320x205 640x410 960x615 1000x641 | fallback none'],
  ['grey.jpg', 'jpeg 1281x719 | thumb 320x180 | webp 320x180 640x359 960x539 1280x718 1281x719 | fallback none'],
  ['cmyk.jpg', 'jpeg 900x1333 | thumb 216x320 | webp 320x474 640x948 900x1333 | fallback none'],
  ['tiny.png', 'png 10x7 | thumb 10x7 | webp 10x7 | fallback none'],
  ['wide.tiff', 'tiff 2999x401 | thumb 320x43 | webp 320x43 640x86 960x128 1280x171 1920x257 2560x342 | fallback jpeg 2560x342'],
  ['exif-8.jpg', 'jpeg 1001x1601 | thumb 200x320 | webp 320x512 640x1024 960x1535 1001x1601 | fallback none'],
];

interface Expected {
  format: string;
  width: number;
  height: number;
  convertedFrom: string | null;
  thumb: [number, number];
  webp: [number, number][];
  alpha: boolean;
  fallback: { format: string; width: number; height: number } | null;
}

const size = (s: string): [number, number] => s.split('x').map(Number) as [number, number];

function parse(line: string): Expected {
  const [orig, thumb, webp, fallback] = line.split(' | ') as [string, string, string, string];
  const [format, dims, , from] = orig.split(' ') as [string, string, string?, string?];
  const [w, h] = size(dims);
  const webpParts = webp.split(' ').slice(1);
  const fb = fallback.split(' ').slice(1);
  return {
    format,
    width: w,
    height: h,
    convertedFrom: from ?? null,
    thumb: size(thumb.split(' ')[1]!),
    webp: webpParts.filter((p) => p !== 'alpha').map(size),
    alpha: webpParts.includes('alpha'),
    fallback: fb[0] === 'none' ? null : { format: fb[0]!, width: size(fb[1]!)[0], height: size(fb[1]!)[1] },
  };
}

/** Mean absolute difference per channel value (0–255) of two same-sized RGB rasters. */
async function meanDiff(a: Buffer, b: Buffer, width: number, height: number): Promise<number> {
  const raw = async (x: Buffer): Promise<Buffer> =>
    sharp(x).resize(width, height, { fit: 'fill' }).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer();
  const [ra, rb] = await Promise.all([raw(a), raw(b)]);
  let sum = 0;
  for (let i = 0; i < ra.length; i++) sum += Math.abs(ra[i]! - rb[i]!);
  return sum / ra.length;
}

describe('image pipeline: every rendition derived from one decode', () => {
  let srv: TestServer;
  let c: TestClient;
  const inputs = new Map<string, Buffer>();
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
    for (const [name] of TODAY) if (name.includes('/')) inputs.set(name, demoFile(`images/${name}`));
    for (const s of await syntheticRenditionInputs()) inputs.set(s.name, s.bytes);
  });
  afterAll(async () => {
    await srv.close();
  });
  const blob = async (url: string): Promise<Buffer> => {
    return srv.app.library.blobs.get(await blobShaOf(srv, url));
  };
  const near = (got: number, want: number): void => expect(Math.abs(got - want), `${got} vs ${want}`).toBeLessThanOrEqual(1);

  it.each(TODAY)('%s keeps the renditions it had (formats, widths, heights ±1 px, alpha, orientation)', async (name, line) => {
    const want = parse(line);
    const bytes = inputs.get(name)!;
    const r = await c.call('svc_asset_import', 'import', {
      data: bytes.toString('base64'),
      mime_type: 'image/jpeg',
      filename: name.split('/').pop()!,
    });
    expect(r.error).toBeUndefined();
    const a = r.structured as {
      format: string;
      width: number;
      height: number;
      converted_from: string | null;
      url: string;
      fallback_url: string;
      delivery: { thumbnail_url: string; variants: { url: string; width: number; height: number; format: string }[] };
    };
    expect({ format: a.format, width: a.width, height: a.height, converted_from: a.converted_from }).toEqual({
      format: want.format,
      width: want.width,
      height: want.height,
      converted_from: want.convertedFrom,
    });

    // WebP srcset: the same widths in order, each height the aspect ratio rounded to the nearest px
    expect(a.delivery.variants.map((v) => [v.format, v.width])).toEqual(want.webp.map(([w]) => ['webp', w]));
    for (const [i, v] of a.delivery.variants.entries()) {
      near(v.height, want.webp[i]![1]);
      expect(Math.abs(v.height - (a.height * v.width) / a.width)).toBeLessThanOrEqual(0.5);
      const m = await sharp(await blob(v.url)).metadata();
      expect({ format: m.format, width: m.width, height: m.height, pages: m.pages ?? 1 }).toEqual({
        format: 'webp',
        width: v.width,
        height: v.height,
        pages: 1,
      });
      expect(m.hasAlpha, `alpha of ${v.width} px WebP`).toBe(want.alpha);
    }

    const thumb = await sharp(await blob(a.delivery.thumbnail_url)).metadata();
    expect(thumb.format).toBe('jpeg');
    expect(Math.max(thumb.width, thumb.height)).toBe(Math.max(...want.thumb));
    near(thumb.width, want.thumb[0]);
    near(thumb.height, want.thumb[1]);

    if (!want.fallback) expect(a.fallback_url).toBe(a.url);
    else {
      const fb = await sharp(await blob(a.fallback_url)).metadata();
      expect([fb.format, fb.width]).toEqual([want.fallback.format, want.fallback.width]);
      near(fb.height, want.fallback.height);
      if (want.fallback.format === 'png') expect(fb.hasAlpha).toBe(true);
    }

    // Content: the smallest WebP shows what sharp's own auto-oriented resize of the input shows
    // (EXIF orientation applied, the first frame of an animation, colours converted to sRGB). Not for a
    // few dozen pixels, where WebP's 4:2:0 chroma alone moves every colour.
    const small = a.delivery.variants[0]!;
    if (small.width * small.height < 1000) return;
    const source = want.convertedFrom ? await blob(a.url) : bytes;
    const reference = await sharp(source).rotate().resize(small.width, small.height, { fit: 'fill' }).png().toBuffer();
    expect(await meanDiff(await blob(small.url), reference, small.width, small.height)).toBeLessThan(8);
  });
});
