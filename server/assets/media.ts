import { fileTypeFromBuffer } from 'file-type';
import sharp, { type Metadata, type OutputInfo } from 'sharp';
import { isobmffTruncation } from '../domain/media/isobmff.ts';
import { MAX_RENDITION_WIDTH, renditionPlan, scaled, THUMBNAIL_EDGE, type RenditionSpec } from '../domain/media/rendition-plan.ts';
import { carriedMetadata } from '../enrichment/embedded-metadata.ts';
import { ServiceError } from '../errors.ts';
import type { RgbaImage } from './heic-worker.ts';
import { imageTimeoutError, isSharpTimeout, mapImageTimeout, timedSharp } from './image-timeout.ts';
import { rasteriseSvg, sanitiseSvg } from './svg-render.ts';
import { probeVideo, videoThumbnail } from './video.ts';

/** What the bytes really are, sniffed from magic numbers (never from the caller's MIME type). */
export interface Sniffed {
  mime: string;
  format: string;
  kind: 'image' | 'video' | 'svg';
}

const IMAGE_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'tiff', 'heic', 'heif']);
const VIDEO_FORMATS = new Set(['mp4', 'webm', 'mov', 'quicktime']);

/**
 * Sniff the real type of `bytes` with file-type (magic numbers); SVG is recognised as XML text with an
 * `<svg` root. @returns null when the bytes are not a supported image, SVG or video
 */
export async function sniff(bytes: Buffer): Promise<Sniffed | null> {
  const ft = await fileTypeFromBuffer(bytes);
  if (ft && ft.ext !== 'xml') {
    const format = ft.ext === 'jpg' ? 'jpeg' : ft.ext === 'tif' ? 'tiff' : ft.ext;
    if (IMAGE_FORMATS.has(format)) return { mime: ft.mime, format, kind: 'image' };
    if (VIDEO_FORMATS.has(format) || ft.mime.startsWith('video/'))
      return { mime: ft.mime, format: format === 'quicktime' ? 'mov' : format, kind: 'video' };
    return null;
  }
  const head = bytes
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head))
    return { mime: 'image/svg+xml', format: 'svg', kind: 'svg' };
  return null;
}

/** A decoded original ready to store: possibly converted (HEIC → PNG). */
export interface Original {
  bytes: Buffer;
  format: string;
  mime: string;
  kind: 'image' | 'video' | 'svg';
  /** px after EXIF orientation (video: display size from the container); null when unknown */
  width: number | null;
  height: number | null;
  /** video only: seconds, when the container says */
  durationS?: number | null;
  hasAlpha: boolean;
  convertedFrom: string | null;
}

/** Where image work runs: the image pool (server/assets/image-pool.ts) at one priority. */
export interface ImageWork {
  /** run one sharp operation */
  run<T>(op: () => Promise<T>): Promise<T>;
  /** decode HEIC/HEIF (HEVC) to RGBA off the main thread @throws Error when it cannot be decoded */
  decodeHeic(bytes: Buffer): Promise<RgbaImage>;
  /** rasterise an SVG at about `targetWidth` px, killable at its time limit (image-pool.ts) @throws SvgRenderError */
  renderSvg(svg: Buffer, canvasWidth: number, targetWidth: number, maxPixels: number): Promise<RgbaImage>;
  /** an SVG without scripts, event handlers, unsafe URLs or foreignObject (image-pool.ts) @throws SvgRenderError */
  sanitizeSvg(svg: Buffer): Promise<Buffer>;
  /** nice value (0–19) for a worker thread this work starts (the video poster decoder); absent = 0 */
  nice?: number;
  /** time limit of every sharp pipeline this work runs, whole s (ATELIER_IMAGE_TIMEOUT_S); absent or 0 = none */
  timeoutS?: number;
}

function tooLarge(field: string, w: number, h: number, max: number): ServiceError {
  return new ServiceError('invalid_argument', field, `image is ${w}×${h} = ${w * h} px; the limit is ${max} px (decompression-bomb guard)`);
}

/**
 * Pixel limit of SVG and GIF, below ATELIER_MAX_INPUT_PIXELS: an SVG is rasterised at its canvas size
 * (a few hundred bytes of filters on a large canvas cost seconds of CPU per megapixel) and a GIF decodes
 * every frame, so a tiny file can stand for far more work than a photo of the same pixel count.
 * 16.8 MP (4096 × 4096) covers any icon, illustration or animation a storefront shows. For GIF the
 * limit counts all frames (width × height × frames).
 */
export const SVG_GIF_MAX_PIXELS = 4096 * 4096;

/** An original plus, for HEIC, its decoded pixels (so nothing decodes it twice). */
interface Read {
  original: Original;
  pixels: RgbaImage | null;
}

/**
 * Sniff, read the header, apply the pixel limit and convert HEIC/HEIF to PNG. Does not decode other
 * formats' pixels (the caller does, once).
 */
async function readOriginal(
  bytes: Buffer,
  field: string,
  opts: { maxInputPixels: number; allowVideo: boolean },
  work: ImageWork,
): Promise<Read> {
  const sniffed = await sniff(bytes);
  if (!sniffed)
    throw new ServiceError('invalid_argument', field, 'is not a supported image (JPEG, PNG, WebP, GIF, AVIF, TIFF, HEIC/HEIF, SVG)');
  if (sniffed.kind === 'video') {
    if (!opts.allowVideo)
      throw new ServiceError(
        'invalid_argument',
        field,
        `is a ${sniffed.format} video; import accepts images only (use the upload panel for video)`,
      );
    const info = await probeVideo(bytes);
    const original: Original = {
      bytes,
      format: sniffed.format,
      mime: sniffed.mime,
      kind: 'video',
      width: info?.widthPx ?? null,
      height: info?.heightPx ?? null,
      durationS: info?.durationS ?? null,
      hasAlpha: false,
      convertedFrom: null,
    };
    return { original, pixels: null };
  }
  // Stored, hashed and served as sanitised (issue 36 finding 9); every later step reads the clean document.
  if (sniffed.format === 'svg') bytes = await sanitiseSvg(bytes, field, work);
  let meta: Metadata;
  try {
    // header only: cheap, so it runs outside the pool and refuses bad input before any queueing
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw new ServiceError('invalid_argument', field, `could not be read as ${sniffed.format}: the file is corrupt or truncated`, {
      cause: e,
    });
  }
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  if (w * h > opts.maxInputPixels) throw tooLarge(field, w, h, opts.maxInputPixels);
  const heavy = Math.min(SVG_GIF_MAX_PIXELS, opts.maxInputPixels);
  const frames = sniffed.format === 'gif' ? Math.max(1, meta.pages ?? 1) : 1;
  if ((sniffed.format === 'svg' || sniffed.format === 'gif') && w * h * frames > heavy)
    throw new ServiceError(
      'invalid_argument',
      field,
      `${sniffed.format.toUpperCase()} is ${w}×${h}${frames > 1 ? ` × ${frames} frames` : ''} = ${w * h * frames} px; the limit for SVG and GIF is ${heavy} px (they cost far more work per pixel than photos)`,
    );

  if ((sniffed.format === 'heic' || sniffed.format === 'heif') && meta.compression !== 'av1') {
    // libheif decodes a cut-off file without an error, painting the missing tiles: check the boxes first.
    const cut = isobmffTruncation(bytes);
    if (cut)
      throw new ServiceError(
        'conversion_failed',
        field,
        `HEIC/HEIF could not be converted to PNG: the file is truncated (${cut}); nothing was imported`,
      );
    let pixels: RgbaImage;
    let png: Buffer;
    // the PNG keeps the file's caption, keywords and rights: search reads them at enrichment
    const carried = carriedMetadata(bytes, meta.xmp);
    try {
      pixels = await work.decodeHeic(bytes);
      png = await work.run(() => {
        let out = timedSharp(work.timeoutS, pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 4 } }).png();
        if (carried.exif) out = out.withExif(carried.exif);
        if (carried.xmp) out = out.withXmp(carried.xmp);
        return out.toBuffer();
      });
    } catch (e) {
      if (work.timeoutS && isSharpTimeout(e)) throw imageTimeoutError(field, work.timeoutS, e);
      throw new ServiceError(
        'conversion_failed',
        field,
        `HEIC/HEIF could not be converted to PNG (${(e as Error).message}); nothing was imported`,
        { cause: e },
      );
    }
    return {
      original: {
        bytes: png,
        format: 'png',
        mime: 'image/png',
        kind: 'image',
        width: pixels.width,
        height: pixels.height,
        hasAlpha: true,
        convertedFrom: sniffed.format,
      },
      pixels,
    };
  }
  if (sniffed.format === 'svg')
    return {
      original: svgOriginal(bytes, w, h),
      pixels: await rasteriseSvg(bytes, w, h, Math.min(w, MAX_RENDITION_WIDTH), field, opts.maxInputPixels, work),
    };
  const swap = (meta.orientation ?? 1) >= 5;
  const original: Original = {
    bytes,
    format: sniffed.format,
    mime: sniffed.mime,
    kind: sniffed.kind,
    width: (swap ? meta.height : meta.width) ?? null,
    height: (swap ? meta.width : meta.height) ?? null,
    hasAlpha: meta.hasAlpha ?? false,
    convertedFrom: null,
  };
  return { original, pixels: null };
}

const svgOriginal = (bytes: Buffer, w: number, h: number): Original => ({
  bytes,
  format: 'svg',
  mime: 'image/svg+xml',
  kind: 'svg',
  width: w || null,
  height: h || null,
  hasAlpha: true,
  convertedFrom: null,
});

const corrupt = (field: string, format: string, e: unknown): ServiceError =>
  new ServiceError('invalid_argument', field, `could not be decoded as ${format}: the file is corrupt or truncated`, { cause: e });

/** Why a decode failed: it ran past the time limit of `work` (conversion_failed), or the bytes are corrupt. */
const decodeError = (field: string, format: string, e: unknown, work: Pick<ImageWork, 'timeoutS'>): ServiceError =>
  work.timeoutS && isSharpTimeout(e) ? imageTimeoutError(field, work.timeoutS, e) : corrupt(field, format, e);

/**
 * Validate and normalise input bytes without deriving renditions (generation inputs). HEIC/HEIF
 * (HEVC-coded; prebuilt libvips cannot decode it) is converted to PNG on the image pool's worker thread.
 * Width/height are reported after EXIF orientation. Every pixel is decoded once (at reduced scale where
 * the format allows) so corrupt or truncated files fail here. An SVG comes with its pixels, rendered as
 * for an import (`rasteriseSvg`: at most the widest rendition's width, under the render time limit).
 * @param field JSON path named in errors (`args.data`, `args.url`)
 * @returns the original, and for SVG its RGBA raster (null otherwise)
 * @throws ServiceError invalid_argument (not an image, corrupt, over the pixel limit, SVG too slow) | conversion_failed (HEIC decode failed) | busy
 */
export async function normaliseOriginal(
  bytes: Buffer,
  field: string,
  opts: { maxInputPixels: number; allowVideo: boolean },
  work: ImageWork,
): Promise<{ original: Original; svgPixels: RgbaImage | null }> {
  const { original, pixels } = await readOriginal(bytes, field, opts, work);
  if (original.kind === 'svg') return { original, svgPixels: pixels };
  if (original.kind === 'video' || pixels) return { original, svgPixels: null };
  try {
    await work.run(() =>
      timedSharp(work.timeoutS, bytes, { limitInputPixels: opts.maxInputPixels, failOn: 'error' })
        .resize(8, 8, { fit: 'inside' })
        .raw()
        .toBuffer(),
    );
  } catch (e) {
    throw decodeError(field, original.format, e, work);
  }
  return { original, svgPixels: null };
}

export interface Rendition {
  role: RenditionSpec['role'];
  width: number;
  height: number;
  format: string;
  bytes: Buffer;
}

/** An original and every rendition, derived from one decode. */
export interface PreparedImage {
  original: Original;
  renditions: Rendition[];
}

/**
 * Validate and normalise input bytes and derive every rendition from **one decode**: the original is
 * decoded once (EXIF auto-orientation, sRGB, first frame of an animation as before) straight to the
 * size of the largest rendition — libvips shrink-on-load decodes JPEG/WebP at reduced scale when
 * only smaller renditions are needed, and `sequentialRead` streams it — into raw pixels, and each
 * rendition is resized from those pixels and encoded as its own pool operation (so two images' encodes
 * interleave and at most the pool's concurrency of encodes run at once). HEIC/HEIF is decoded once on
 * the pool's worker thread; the same pixels give the stored PNG and the renditions. Peak memory is one
 * reduced-scale decode plus the raw master (≤ 2560 px wide). sharp docs: https://sharp.pixelplumbing.com/api-constructor
 * (`sequentialRead`, `failOn`), https://sharp.pixelplumbing.com/api-resize (shrink-on-load).
 * @param field JSON path named in errors (`args.data`, `args.url`)
 * @throws ServiceError invalid_argument (not an image, corrupt or truncated, over the pixel limit) | conversion_failed (HEIC decode failed)
 */
export async function prepareImage(
  bytes: Buffer,
  field: string,
  opts: { maxInputPixels: number; allowVideo: boolean },
  work: ImageWork,
): Promise<PreparedImage> {
  const { original, pixels } = await readOriginal(bytes, field, opts, work);
  return { original, renditions: await deriveRenditions(original, pixels, field, opts.maxInputPixels, work) };
}

async function deriveRenditions(
  original: Original,
  pixels: RgbaImage | null,
  field: string,
  maxInputPixels: number,
  work: Pick<ImageWork, 'run' | 'nice' | 'timeoutS'>,
): Promise<Rendition[]> {
  if (original.kind === 'video') {
    // The poster frame as the thumbnail; no srcset or fallback (the video itself is what is shown). A frame
    // over the pixel limit is not decoded: the decompression-bomb guard applies to frames too.
    if ((original.width ?? 0) * (original.height ?? 0) > maxInputPixels) return [];
    const t = await mapImageTimeout(
      () =>
        work.run(() =>
          videoThumbnail(original.bytes, original.durationS ?? null, THUMBNAIL_EDGE, maxInputPixels, work.nice, work.timeoutS),
        ),
      field,
      work.timeoutS,
    );
    return t ? [{ role: 'thumbnail', width: t.width, height: t.height, format: 'jpeg', bytes: t.bytes }] : [];
  }
  if (!original.width || !original.height) return [];
  const plan = renditionPlan(original.width, original.height, original.format, original.hasAlpha);
  const masterWidth = Math.min(original.width, MAX_RENDITION_WIDTH);
  const masterHeight = scaled(original.height, masterWidth, original.width);
  let master: { data: Buffer; info: OutputInfo };
  try {
    master = await work.run(() => {
      const input = pixels
        ? timedSharp(work.timeoutS, pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 4 } })
        : timedSharp(work.timeoutS, original.bytes, { limitInputPixels: maxInputPixels, failOn: 'error', sequentialRead: true }).rotate();
      const sized = masterWidth === original.width ? input : input.resize(masterWidth, masterHeight, { fit: 'fill' });
      return sized.raw().toBuffer({ resolveWithObject: true });
    });
  } catch (e) {
    throw decodeError(field, original.convertedFrom ?? original.format, e, work);
  }
  const raw = { raw: { width: master.info.width, height: master.info.height, channels: master.info.channels } };
  const derive = (r: RenditionSpec): Promise<Rendition> => mapImageTimeout(() => encode(r), field, work.timeoutS);
  const encode = (r: RenditionSpec): Promise<Rendition> =>
    work.run(async () => {
      let img = timedSharp(work.timeoutS, master.data, raw);
      if (r.width !== master.info.width || r.height !== master.info.height) img = img.resize(r.width, r.height, { fit: 'fill' });
      if (r.role === 'thumbnail') img = img.flatten({ background: '#ffffff' }).jpeg({ quality: 78, mozjpeg: true });
      else if (r.format === 'webp') img = img.webp({ quality: 80 });
      else img = r.format === 'png' ? img.png() : img.jpeg({ quality: 85, mozjpeg: true });
      const out = await img.toBuffer({ resolveWithObject: true });
      return { role: r.role, width: out.info.width, height: out.info.height, format: r.format, bytes: out.data };
    });
  return Promise.all(plan.map(derive));
}
