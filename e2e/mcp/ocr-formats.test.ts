import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { DEMO_DIR, demoFile, startTestServer, type CallResult, type TestClient, type TestServer } from './harness.ts';
import { smallHeic } from './fixtures.ts';
import { threadsOfThisProcess } from './threads.ts';

// Exact strings tesseract.js's own test-suite expects from these images (demo/ocr/expected-text.mjs, untyped JS).
const expectedUrl = pathToFileURL(path.join(DEMO_DIR, 'ocr', 'expected-text.mjs')).href;
const { BILL_SPACED_TEXT, COMSIC_TEXT, SIMPLE_TEXT, TESTOCR_TEXT } = (await import(expectedUrl)) as Record<string, string>;
const names = (r: CallResult): string[] => (r.structured.assets as { name: string }[]).map((a) => a.name);
const lines = (t: string): string[] =>
  t
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);

describe('OCR mode (tesseract.js, bundled English data)', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_OCR: '1' } });
    c = await srv.connect();
    theme = srv.tenant.theme_id;
    for (const [file, mime] of [
      ['ocr/cosmic.png', 'image/png'],
      ['ocr/testocr.png', 'image/png'],
      ['ocr/bill.png', 'image/png'],
      ['ocr/simple-90.jpg', 'image/jpeg'],
      ['images/text/craft-beer.jpg', 'image/jpeg'],
      // photos without legible text: textures, a book's spine and a portrait's background
      ['images/text/book-beside-flowers.jpg', 'image/jpeg'],
      ['images/metadata/portrait-orientation-6.jpg', 'image/jpeg'],
    ] as const) {
      const r = await c.call('svc_asset_import', 'import', {
        data: demoFile(file).toString('base64'),
        mime_type: mime,
        filename: file.split('/').pop(),
      });
      expect(r.error).toBeUndefined();
    }
    await waitForEnrichment(c, theme, 120_000);
  }, 180_000);
  afterAll(async () => srv.close());

  it.each([
    [lines(COMSIC_TEXT!)[1]!, 'cosmic.png'],
    [lines(COMSIC_TEXT!)[2]!, 'cosmic.png'],
    [lines(TESTOCR_TEXT!)[0]!, 'testocr.png'],
    [lines(TESTOCR_TEXT!)[3]!, 'testocr.png'],
    [lines(BILL_SPACED_TEXT!)[0]!, 'bill.png'],
    [lines(BILL_SPACED_TEXT!)[1]!.split(/\s+/).slice(0, 3).join(' '), 'bill.png'],
    [lines(SIMPLE_TEXT!)[0]!, 'simple-90.jpg'],
    // text on a photo: the beer can labels
    ['weekend warrior', 'craft-beer.jpg'],
    ['rodeo clown', 'craft-beer.jpg'],
  ])('finds "%s" in %s', async (query, expected) => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'ocr', query });
    expect(r.error).toBeUndefined();
    expect((r.structured.request as { match: string }).match).toBe('all_terms');
    expect(names(r)[0]).toBe(expected);
  });

  // Linux: a thread's nice value is its own (setpriority(2))
  it.runIf(process.platform === 'linux')(
    'runs OCR on a thread at the lowest CPU priority while the thread serving requests keeps its own',
    () => {
      const threads = threadsOfThisProcess();
      expect(threads.find((t) => t.tid === process.pid)?.nice).toBe(0);
      // one OCR worker per enrichment job that runs at once (ATELIER_ENRICHMENT_CONCURRENCY)
      expect(threads.filter((t) => t.nice === 19)).toHaveLength(srv.config.env.ATELIER_ENRICHMENT_CONCURRENCY);
    },
  );

  it('uses recognised text for machine alt text and the text tag, but not the file name', async () => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'ocr', query: 'cosmic void' });
    const a = (r.structured.assets as { id: string; alt_text: string; tags: string[] }[])[0]!;
    expect(a.alt_text).toContain('the Cosmic Void');
    expect(a.tags).toContain('text');
    const v = await c.call('svc_assets', 'view', { asset_id: a.id });
    expect(v.structured).toMatchObject({ enrichment_status: 'done', alt_text: a.alt_text });
    expect(v.structured.ocr_text).toContain('from beyond');
    const none = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'ocr', query: 'craft beer' });
    expect(none.structured.total).toBe(0);
  });

  it('reads no text into a photo without legible text (no noise words, no text tag)', async () => {
    // Tesseract's single-block segmentation read these textures as "Fy bit" and "ry Hi Ri Bottom"
    const all = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 });
    const photos = (all.structured.assets as { id: string; name: string; tags: string[] }[]).filter((a) =>
      ['book-beside-flowers.jpg', 'portrait-orientation-6.jpg'].includes(a.name),
    );
    expect(photos).toHaveLength(2);
    for (const a of photos) {
      expect(a.tags, a.name).not.toContain('text');
      const v = await c.call('svc_assets', 'view', { asset_id: a.id });
      expect(v.structured.ocr_text ?? null, a.name).toBeNull();
    }
  });
});

describe('formats: HEIC conversion and EXIF orientation', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer();
    c = await srv.connect();
  });
  afterAll(async () => srv.close());
  const total = async (): Promise<number> =>
    (await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id })).structured.total as number;

  it('imports a HEIC as a PNG with the dimensions libheif reports, and enriches it', async () => {
    const heic = smallHeic();
    const meta = await sharp(heic).metadata();
    const r = await c.call('svc_asset_import', 'import', {
      data: heic.toString('base64'),
      mime_type: 'image/heic',
      filename: 'IMG_2682.heic',
    });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({ format: 'png', converted_from: 'heic', width: meta.width, height: meta.height });
    const http = await srv.listen();
    const png = Buffer.from(await (await fetch((r.structured.url as string).replace(/^https?:\/\/[^/]+/, http.url))).arrayBuffer());
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: meta.width, height: meta.height });
    const [a] = await waitForEnrichment(c, srv.tenant.theme_id);
    expect(a).toMatchObject({ enrichment_status: 'done' });
  });

  it('refuses a corrupt HEIC with conversion_failed and stores nothing', async () => {
    const before = await total();
    const heic = smallHeic();
    // Keep the ftyp/meta boxes and the mdat header (so it still sniffs as HEIC) and destroy the coded image data.
    const data = heic.indexOf('mdat') + 4;
    const broken = Buffer.concat([heic.subarray(0, data), Buffer.alloc(heic.length - data, 0x5a)]);
    const r = await c.call('svc_asset_import', 'import', {
      data: broken.toString('base64'),
      mime_type: 'image/heic',
      filename: 'broken.heic',
    });
    expect(r.error).toMatchObject({ code: 'conversion_failed', field: 'args.data' });
    expect(await total()).toBe(before);
  });

  it.each([
    ['images/metadata/portrait-orientation-6.jpg', 'image/jpeg', 840, 700],
    ['images/metadata/portrait.jpg', 'image/jpeg', 840, 700],
    ['images/formats/denali.webp', 'image/webp', null, null],
    ['images/formats/8bit-sRGB.avif', 'image/avif', null, null],
  ] as const)('%s is stored upright with display dimensions', async (file, mime, w, h) => {
    const bytes = demoFile(file);
    const m = await sharp(bytes).metadata();
    const swap = (m.orientation ?? 1) >= 5;
    const r = await c.call('svc_asset_import', 'import', { data: bytes.toString('base64'), mime_type: mime });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({ width: w ?? (swap ? m.height : m.width), height: h ?? (swap ? m.width : m.height) });
    // The stored original carries no rotation left to apply: its pixels are upright.
    const http = await srv.listen();
    const stored = Buffer.from(await (await fetch((r.structured.url as string).replace(/^https?:\/\/[^/]+/, http.url))).arrayBuffer());
    const sm = await sharp(stored).metadata();
    const sw = (sm.orientation ?? 1) >= 5;
    expect([sw ? sm.height : sm.width, sw ? sm.width : sm.height]).toEqual([r.structured.width, r.structured.height]);
    const thumb = (await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, limit: 1 })).structured.assets as {
      thumbnail_url: string;
    }[];
    const tb = Buffer.from(await (await fetch(thumb[0]!.thumbnail_url.replace(/^https?:\/\/[^/]+/, http.url))).arrayBuffer());
    const tm = await sharp(tb).metadata();
    expect(Math.sign(tm.width - tm.height)).toBe(Math.sign((r.structured.width as number) - (r.structured.height as number)));
  });
});
