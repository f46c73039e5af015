/**
 * Which renditions an uploaded image gets, and at what size: pure arithmetic over its size and format.
 * server/assets/media.ts derives them with sharp.
 */

/** Widths (px) of the responsive WebP set; the original width is added when it is smaller than the next step. */
export const SRCSET_WIDTHS = [320, 640, 960, 1280, 1920, 2560];
/** Longest edge (px) of thumbnails. */
export const THUMBNAIL_EDGE = 320;
/** Widest rendition (px): the largest WebP step and the fallback's cap. */
export const MAX_RENDITION_WIDTH = 2560;

/** A rendition to derive: role, exact size in px, output format. */
export interface RenditionSpec {
  role: 'thumbnail' | 'fallback' | 'webp';
  width: number;
  height: number;
  format: 'jpeg' | 'webp' | 'png';
}

/** `height` px scaled to `width` px for an image `w`×`h`, rounded to the nearest px (≥ 1). */
export const scaled = (h: number, width: number, w: number): number => Math.max(1, Math.round((h * width) / w));

/**
 * The renditions of an upright `width`×`height` px image of `format`: a JPEG thumbnail (longest edge
 * 320 px, never enlarged), WebP at each srcset width below the image width plus the image width itself
 * up to 2560 px, and a fallback (JPEG, or PNG with alpha; ≤ 2560 px wide) for formats browsers cannot
 * all show (not JPEG, PNG or GIF). Heights keep the aspect ratio, rounded to the nearest px.
 */
export function renditionPlan(width: number, height: number, format: string, hasAlpha: boolean): RenditionSpec[] {
  const long = Math.max(width, height);
  const thumb =
    long <= THUMBNAIL_EDGE
      ? { width, height }
      : width >= height
        ? { width: THUMBNAIL_EDGE, height: scaled(height, THUMBNAIL_EDGE, width) }
        : { width: scaled(width, THUMBNAIL_EDGE, height), height: THUMBNAIL_EDGE };
  const out: RenditionSpec[] = [{ role: 'thumbnail', ...thumb, format: 'jpeg' }];
  const widths = SRCSET_WIDTHS.filter((w) => w < width);
  if (width <= MAX_RENDITION_WIDTH) widths.push(width);
  if (widths.length === 0) widths.push(Math.min(width, MAX_RENDITION_WIDTH));
  for (const w of widths) out.push({ role: 'webp', width: w, height: scaled(height, w, width), format: 'webp' });
  if (!['jpeg', 'png', 'gif'].includes(format)) {
    const w = Math.min(width, MAX_RENDITION_WIDTH);
    out.push({ role: 'fallback', width: w, height: scaled(height, w, width), format: hasAlpha ? 'png' : 'jpeg' });
  }
  return out;
}
