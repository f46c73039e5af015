import sharp from 'sharp';
import { autoTags, cleanOcr, machineAltText, nameWords, orientationOf } from '../domain/media/alt-text.ts';
import { dominantColours, isMonochrome, visualDescriptor, type DominantColour } from '../domain/media/colour.ts';
import type { ImageCaptioner } from '../providers/vision-http.ts';
import type { Logger } from '../log.ts';
import { EMBEDDED_CAPTION_SOURCE } from '../domain/media/embedded-metadata.ts';
import { embeddedDescription } from './embedded-metadata.ts';
import type { OcrEngine } from './ocr.ts';

/** What analysis derives from an image's pixels. */
export interface Analysis {
  colours: DominantColour[];
  orientation: 'landscape' | 'portrait' | 'square' | null;
  ocrText: string | null;
  ocrConfidence: number | null;
  /** measured tags (colours, text, transparency…), then the keywords the file's own metadata lists */
  autoTags: string[];
  machineAltText: string;
  /** the vision model's caption when one is configured and answered, else the file's own description (XMP, IPTC, EXIF) */
  caption: string | null;
  captionModelId: string | null;
  visual: Float32Array;
}

/** Pixel size of the raster the colour statistics and layout are computed on. */
const RASTER = 48;
/** OCR input is capped at this many px on the long side (Tesseract time grows with area). */
export const OCR_MAX_PX = 1600;
/** Longest edge (px) of the one decode everything here is derived from: the largest input below (OCR; captions use 1024). */
const MASTER_MAX_PX = OCR_MAX_PX;

/** Where sharp operations run (the server's image pool at background priority); default: at once. */
export interface ImageRunner {
  run<T>(op: () => Promise<T>): Promise<T>;
}
const immediate: ImageRunner = { run: (op) => op() };

/**
 * Analyse stored image bytes (already EXIF-normalised PNG/JPEG/WebP/…; SVG is rasterised by sharp):
 * dominant colours, orientation, OCR (when an engine is given), auto tags, machine alt text and the
 * visual descriptor. Deterministic for the same bytes, so re-running a job is harmless. The file's own
 * metadata fills what the user left out: its keywords join the auto tags of an asset without user tags
 * (`wantKeywords`, default true). Without user alt text (`wantCaption`), the machine alt text
 * is, with a `captioner`, the vision model's caption (what the operator configured for alt text: it
 * describes what is seen; the file's own description goes to the model as context, for the names it
 * holds); else, or when that call fails (logged), the file's own description when it has
 * one; else the heuristic alt text.
 * The image is decoded once, auto-oriented, at most 1600 px on the long side (shrink-on-load where the
 * format allows), and every raster below is derived from those pixels: peak memory is one
 * reduced-scale decode, not one full decode per raster.
 * @param images where the sharp operations run (the image pool)
 * @throws Error when sharp cannot decode the bytes
 */
export async function analyzeImage(
  bytes: Buffer,
  info: { name: string; prompt: string | null; kind: string; wantCaption?: boolean; wantKeywords?: boolean; heads?: string[] },
  ocr: OcrEngine | null,
  vision?: { captioner: ImageCaptioner; log: Logger; signal?: AbortSignal },
  images: ImageRunner = immediate,
): Promise<Analysis> {
  const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  const master = await images.run(() =>
    sharp(bytes, { limitInputPixels: false, animated: false, sequentialRead: true })
      .rotate()
      .resize(MASTER_MAX_PX, MASTER_MAX_PX, { fit: 'inside', withoutEnlargement: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true }),
  );
  const base = sharp(master.data, { raw: { width: master.info.width, height: master.info.height, channels: master.info.channels } });
  const swap = (meta.orientation ?? 1) >= 5;
  const width = (swap ? meta.height : meta.width) ?? null;
  const height = (swap ? meta.width : meta.height) ?? null;
  const flattened = base.clone().flatten({ background: '#ffffff' });
  const [raster, rasterA, grey] = await images.run(() =>
    Promise.all([
      flattened.clone().resize(RASTER, RASTER, { fit: 'fill' }).removeAlpha().raw().toBuffer(),
      base.clone().resize(RASTER, RASTER, { fit: 'fill' }).ensureAlpha().raw().toBuffer(),
      flattened.clone().resize(9, 8, { fit: 'fill' }).greyscale().raw().toBuffer(),
    ]),
  );
  const colours = dominantColours(new Uint8Array(rasterA), 4);
  const orientation = orientationOf(width, height);
  const visual = visualDescriptor(new Uint8Array(raster), RASTER, new Uint8Array(grey));

  let ocrText: string | null = null;
  let ocrConfidence: number | null = null;
  if (ocr) {
    const png = await images.run(() =>
      flattened.clone().resize(OCR_MAX_PX, OCR_MAX_PX, { fit: 'inside', withoutEnlargement: true }).greyscale().png().toBuffer(),
    );
    // Not an operation of the image pool: OCR runs on the engine's own workers (one per enrichment job that
    // runs at once, at the lowest CPU priority), and holding a pool slot for its seconds would make imports
    // wait behind background work.
    const r = await ocr.recognize(png);
    ocrConfidence = Math.round(r.confidence * 10) / 10;
    ocrText = cleanOcr(r.text, r.confidence, r.words);
  }
  const tags = autoTags({
    colours,
    monochrome: isMonochrome(new Uint8Array(rasterA), 4),
    hasText: ocrText !== null,
    hasAlpha: meta.hasAlpha === true && colours.length > 0 && rasterHasTransparency(rasterA),
    kind: info.kind,
  });
  // the file's own metadata only fills what the user left out: nothing to read when they gave both
  const wantKeywords = info.wantKeywords !== false;
  const embedded = info.wantCaption || wantKeywords ? embeddedDescription(bytes, meta.xmp) : { caption: null, keywords: [] };
  if (wantKeywords) tags.push(...embedded.keywords.filter((k) => !tags.includes(k.toLowerCase())));
  let caption: string | null = null;
  let captionModelId: string | null = null;
  if (vision && info.wantCaption) {
    try {
      const jpeg = await images.run(() =>
        flattened.clone().resize(1024, 1024, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 80 }).toBuffer(),
      );
      caption = await vision.captioner.caption(jpeg, { name: nameWords(info.name), ocrText, description: embedded.caption }, vision.signal);
      captionModelId = vision.captioner.modelId;
    } catch (err) {
      vision.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'vision caption failed; using the file caption or heuristic alt text',
      );
    }
  }
  if (caption === null && info.wantCaption && embedded.caption) {
    caption = embedded.caption;
    captionModelId = EMBEDDED_CAPTION_SOURCE;
  }
  return {
    colours,
    orientation,
    ocrText,
    ocrConfidence,
    autoTags: tags,
    machineAltText: caption ?? machineAltText({ name: info.name, prompt: info.prompt, ocrText, heads: info.heads }),
    caption,
    captionModelId: caption ? captionModelId : null,
    visual,
  };
}

function rasterHasTransparency(rgba: Buffer): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i]! < 250) return true;
  return false;
}
