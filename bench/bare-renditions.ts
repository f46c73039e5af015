/**
 * Bench peers for image import: the same renditions as the import path (JPEG thumbnail with a 320 px
 * longest edge, WebP srcset widths 320…2560 up to the original width, a JPEG/PNG fallback for formats
 * browsers cannot all show), written directly against sharp with nothing around them (no sniffing,
 * hashing, database or blob store). HEIC/HEIF goes through heic-convert to PNG first, as the import
 * path does, since the prebuilt libvips has no HEVC decoder: the decode-once peer decodes it on a
 * worker thread with heic-decode and encodes the PNG with sharp (as the import path now does), the
 * per-rendition peer converts with heic-convert (as the import path did).
 *
 * - `bareDecodeOnce`: decode each image once, at the size of the largest rendition (shrink-on-load),
 *   into raw pixels, then encode every rendition from those pixels, as many at once as there are CPU
 *   cores (the server's default image concurrency, so both use the same number of threads).
 * - `bareDecodePerRendition`: the shape the import path had before issue 15: `metadata()`, a separate
 *   validation decode, then one decode of the original per rendition, one after another.
 */
import os from 'node:os';
import convertHeic from 'heic-convert';
import PQueue from 'p-queue';
import sharp, { type Sharp } from 'sharp';
import { createHeicWorker } from '../server/assets/heic-worker.ts';
import { SRCSET_WIDTHS, THUMBNAIL_EDGE } from '../server/domain/media/rendition-plan.ts';

/** Rendition widths (px) for an image `width` px wide: the WebP srcset steps below it, plus itself up to 2560. */
function webpWidths(width: number): number[] {
  const widths = SRCSET_WIDTHS.filter((w) => w < width);
  if (width <= 2560) widths.push(width);
  if (widths.length === 0) widths.push(Math.min(width, 2560));
  return widths;
}

async function heicToPng(bytes: Buffer): Promise<Buffer> {
  return Buffer.from(await convertHeic({ buffer: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), format: 'PNG' }));
}

const encodes = new PQueue({ concurrency: Math.max(1, os.availableParallelism()) });
const heicWorker = createHeicWorker({ idleMs: 5000 });

/** Decode once, derive every rendition from the raw pixels. @returns total encoded bytes */
export async function bareDecodeOnce(input: Buffer): Promise<number> {
  let bytes = input;
  const m0 = await sharp(bytes).metadata();
  if (m0.format === 'heif' && m0.compression !== 'av1') {
    const px = await heicWorker.decode(bytes);
    bytes = await sharp(px.data, { raw: { width: px.width, height: px.height, channels: 4 } })
      .png()
      .toBuffer();
  }
  const meta = bytes === input ? m0 : await sharp(bytes).metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  const width = swap ? meta.height : meta.width;
  const masterWidth = Math.min(width, 2560);
  const master = await sharp(bytes, { failOn: 'error' })
    .rotate()
    .resize({ width: masterWidth, withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: master.info.width, height: master.info.height, channels: master.info.channels } };
  const from = (): Sharp => sharp(master.data, raw);
  const jobs: (() => Promise<Buffer>)[] = [
    () =>
      from()
        .resize(THUMBNAIL_EDGE, THUMBNAIL_EDGE, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: 78, mozjpeg: true })
        .toBuffer(),
    ...webpWidths(width).map((w) => () => from().resize({ width: w, withoutEnlargement: true }).webp({ quality: 80 }).toBuffer()),
  ];
  if (!['jpeg', 'png', 'gif'].includes(meta.format ?? '')) {
    jobs.push(() => (meta.hasAlpha ? from().png().toBuffer() : from().jpeg({ quality: 85, mozjpeg: true }).toBuffer()));
  }
  return (await encodes.addAll(jobs)).reduce((n, b) => n + b.length, 0);
}

/** The pre-issue-15 shape: validation decode apart, then one decode of the original per rendition, sequentially. @returns total encoded bytes */
export async function bareDecodePerRendition(input: Buffer): Promise<number> {
  let bytes = input;
  const m0 = await sharp(bytes).metadata();
  if (m0.format === 'heif' && m0.compression !== 'av1') bytes = await heicToPng(bytes);
  const meta = bytes === input ? m0 : await sharp(bytes).metadata();
  if (bytes === input) await sharp(bytes, { failOn: 'error' }).resize(8, 8, { fit: 'inside' }).raw().toBuffer();
  const swap = (meta.orientation ?? 1) >= 5;
  const width = swap ? meta.height : meta.width;
  const from = (): Sharp => sharp(bytes).rotate();
  let total = (
    await from()
      .resize(THUMBNAIL_EDGE, THUMBNAIL_EDGE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 78, mozjpeg: true })
      .toBuffer()
  ).length;
  for (const w of webpWidths(width))
    total += (await from().resize({ width: w, withoutEnlargement: true }).webp({ quality: 80 }).toBuffer()).length;
  if (!['jpeg', 'png', 'gif'].includes(meta.format ?? '')) {
    const img = from().resize({ width: Math.min(width, 2560), withoutEnlargement: true });
    total += (await (meta.hasAlpha ? img.png() : img.jpeg({ quality: 85, mozjpeg: true })).toBuffer()).length;
  }
  return total;
}
