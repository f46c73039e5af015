import { fileTypeFromBuffer } from 'file-type';
import convertHeic from 'heic-convert';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { ServiceError } from '../errors.ts';

/** What the bytes really are, sniffed from magic numbers (never from the caller's MIME type). */
export interface Sniffed { mime: string; format: string; kind: 'image' | 'video' | 'svg' }

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
    if (VIDEO_FORMATS.has(format) || ft.mime.startsWith('video/')) return { mime: ft.mime, format: format === 'quicktime' ? 'mov' : format, kind: 'video' };
    return null;
  }
  const head = bytes.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head)) return { mime: 'image/svg+xml', format: 'svg', kind: 'svg' };
  return null;
}

/** A decoded original ready to store: possibly converted (HEIC → PNG). */
export interface Original {
  bytes: Buffer;
  format: string;
  mime: string;
  kind: 'image' | 'video' | 'svg';
  /** px after EXIF orientation; null for video */
  width: number | null;
  height: number | null;
  hasAlpha: boolean;
  convertedFrom: string | null;
}

function tooLarge(field: string, w: number, h: number, max: number): ServiceError {
  return new ServiceError('invalid_argument', field, `image is ${w}×${h} = ${w * h} px; the limit is ${max} px (decompression-bomb guard)`);
}

/**
 * Validate and normalise input bytes. HEIC/HEIF (HEVC-coded; prebuilt libvips cannot decode it) is
 * converted to PNG with heic-convert (libheif WASM). Width/height are reported after EXIF orientation.
 * @param field JSON path named in errors (`args.data`, `args.url`)
 * @throws ServiceError invalid_argument (not an image, corrupt, over the pixel limit) | conversion_failed (HEIC decode failed)
 */
export async function normaliseOriginal(bytes: Buffer, field: string, opts: { maxInputPixels: number; allowVideo: boolean }): Promise<Original> {
  const sniffed = await sniff(bytes);
  if (!sniffed) throw new ServiceError('invalid_argument', field, 'is not a supported image (JPEG, PNG, WebP, GIF, AVIF, TIFF, HEIC/HEIF, SVG)');
  if (sniffed.kind === 'video') {
    if (!opts.allowVideo) throw new ServiceError('invalid_argument', field, `is a ${sniffed.format} video; import accepts images only (use the upload panel for video)`);
    return { bytes, format: sniffed.format, mime: sniffed.mime, kind: 'video', width: null, height: null, hasAlpha: false, convertedFrom: null };
  }
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw new ServiceError('invalid_argument', field, `could not be read as ${sniffed.format}: the file is corrupt or truncated`, { cause: e });
  }
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  if (w * h > opts.maxInputPixels) throw tooLarge(field, w, h, opts.maxInputPixels);

  if ((sniffed.format === 'heic' || sniffed.format === 'heif') && meta.compression !== 'av1') {
    let png: Buffer;
    try {
      png = Buffer.from(await convertHeic({ buffer: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), format: 'PNG' }));
    } catch (e) {
      throw new ServiceError('conversion_failed', field, `HEIC/HEIF could not be converted to PNG (${(e as Error).message}); nothing was imported`, { cause: e });
    }
    const m = await sharp(png).metadata();
    return { bytes: png, format: 'png', mime: 'image/png', kind: 'image', width: m.width ?? null, height: m.height ?? null, hasAlpha: m.hasAlpha ?? false, convertedFrom: sniffed.format };
  }
  try {
    // Decode fully once so corrupt/truncated files fail here, not later in a rendition.
    await sharp(bytes, { limitInputPixels: opts.maxInputPixels, failOn: 'error' }).resize(8, 8, { fit: 'inside' }).raw().toBuffer();
  } catch (e) {
    throw new ServiceError('invalid_argument', field, `could not be decoded as ${sniffed.format}: the file is corrupt or truncated`, { cause: e });
  }
  const swap = (meta.orientation ?? 1) >= 5;
  return {
    bytes,
    format: sniffed.format,
    mime: sniffed.mime,
    kind: sniffed.kind,
    width: (swap ? meta.height : meta.width) ?? null,
    height: (swap ? meta.width : meta.height) ?? null,
    hasAlpha: meta.hasAlpha ?? false,
    convertedFrom: null,
  };
}

export interface Rendition { role: 'thumbnail' | 'fallback' | 'webp'; width: number; height: number; format: string; bytes: Buffer }

/** Widths (px) of the responsive WebP set; the original width is added when it is smaller than the next step. */
export const SRCSET_WIDTHS = [320, 640, 960, 1280, 1920, 2560];
/** Longest edge (px) of thumbnails. */
export const THUMBNAIL_EDGE = 320;

/**
 * Derive renditions with sharp: a JPEG thumbnail (longest edge 320 px, alpha flattened on white),
 * responsive WebP widths ≤ the original, and a fallback (JPEG, or PNG when the image has alpha) for
 * originals browsers cannot all show (WebP, AVIF, TIFF, HEIC-converted PNG keep PNG). All renditions are
 * auto-oriented from EXIF.
 */
export async function makeRenditions(o: Original, maxInputPixels: number): Promise<Rendition[]> {
  if (o.kind === 'video' || !o.width || !o.height) return [];
  const input = (): Sharp => sharp(o.bytes, { limitInputPixels: maxInputPixels }).rotate();
  const out: Rendition[] = [];
  const thumb = await input()
    .resize(THUMBNAIL_EDGE, THUMBNAIL_EDGE, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 78, mozjpeg: true })
    .toBuffer({ resolveWithObject: true });
  out.push({ role: 'thumbnail', width: thumb.info.width, height: thumb.info.height, format: 'jpeg', bytes: thumb.data });

  const widths = SRCSET_WIDTHS.filter((w) => w < o.width!);
  if (o.width <= 2560) widths.push(o.width);
  if (widths.length === 0) widths.push(Math.min(o.width, 2560));
  for (const w of widths) {
    const r = await input().resize({ width: w, withoutEnlargement: true }).webp({ quality: 80 }).toBuffer({ resolveWithObject: true });
    out.push({ role: 'webp', width: r.info.width, height: r.info.height, format: 'webp', bytes: r.data });
  }
  if (!['jpeg', 'png', 'gif'].includes(o.format)) {
    const f = o.hasAlpha ? 'png' : 'jpeg';
    const img = input().resize({ width: Math.min(o.width, 2560), withoutEnlargement: true });
    const r = await (f === 'png' ? img.png() : img.jpeg({ quality: 85, mozjpeg: true })).toBuffer({ resolveWithObject: true });
    out.push({ role: 'fallback', width: r.info.width, height: r.info.height, format: f, bytes: r.data });
  }
  return out;
}

/**
 * A JPEG preview for `view`: longest edge ≤ `maxEdge` px and ≤ `maxBytes`, stepping quality down
 * (85 → 40) and then the edge down by 25 % until it fits.
 */
export async function viewJpeg(bytes: Buffer, maxEdge = 1568, maxBytes = 1024 * 1024): Promise<{ data: Buffer; width: number; height: number }> {
  let edge = maxEdge;
  for (;;) {
    for (const quality of [85, 75, 65, 55, 40]) {
      const r = await sharp(bytes, { limitInputPixels: false })
        .rotate()
        .resize(edge, edge, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality, mozjpeg: true })
        .toBuffer({ resolveWithObject: true });
      if (r.data.length <= maxBytes) return { data: r.data, width: r.info.width, height: r.info.height };
    }
    edge = Math.floor(edge * 0.75);
  }
}
