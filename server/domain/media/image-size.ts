/**
 * Output geometry of a generation: which aspect ratio and image size apply when the caller names only
 * `aspect` and `quality` (spec §4.3), and the pixel size of a ratio/size pair. Pure.
 */

/** Preferred ratios per spec `aspect`, best first; the first one the model supports wins. */
const ASPECT_PREFERENCE: Record<'landscape' | 'square' | 'portrait', string[]> = {
  landscape: ['16:9', '3:2', '4:3', '21:9', '5:4'],
  square: ['1:1'],
  portrait: ['9:16', '2:3', '3:4', '4:5'],
};

/**
 * The ratio used when `aspect_ratio` is omitted: the first of the aspect's preferred ratios that the
 * model lists; failing that, any listed ratio of the same orientation; failing that, the first listed.
 * @returns a value from `supported`
 */
export function defaultAspectRatio(aspect: 'landscape' | 'square' | 'portrait', supported: string[]): string {
  for (const r of ASPECT_PREFERENCE[aspect]) if (supported.includes(r)) return r;
  const same = supported.find((r) => {
    const [w, h] = parseRatio(r);
    return aspect === 'landscape' ? w > h : aspect === 'portrait' ? h > w : w === h;
  });
  return same ?? supported[0] ?? '1:1';
}

/**
 * The size used when `image_size` is omitted: `high` quality asks for 2K where the model offers it
 * (hero images and primary product shots), otherwise 1K; failing that, the first listed size.
 */
export function defaultImageSize(quality: 'low' | 'medium' | 'high', supported: string[]): string {
  if (quality === 'high' && supported.includes('2K')) return '2K';
  if (supported.includes('1K')) return '1K';
  return supported[0] ?? '1K';
}

/** `"16:9"` → `[16, 9]`. @throws Error on a malformed ratio (callers validate against capabilities first) */
export function parseRatio(ratio: string): [number, number] {
  const m = /^(\d{1,2}):(\d{1,2})$/.exec(ratio);
  if (!m || Number(m[1]) === 0 || Number(m[2]) === 0) throw new Error(`not a ratio: ${ratio}`);
  return [Number(m[1]), Number(m[2])];
}

/** Longest edge in px of a size label: `512px` → 512, `1K` → 1024, `2K` → 2048, `4K` → 4096. */
export function longEdgePx(size: string): number {
  const px = /^(\d+)px$/.exec(size);
  if (px) return Number(px[1]);
  const k = /^(\d)K$/.exec(size);
  if (k) return Number(k[1]) * 1024;
  throw new Error(`not an image size: ${size}`);
}

/**
 * Pixel dimensions of a ratio at a size label: the longest edge is the size's edge, the other edge
 * follows the ratio, both rounded to a multiple of `multiple` px (encoders and providers prefer 8 or 16).
 * @param maxPixels optional cap on width × height (scaled down keeping the ratio)
 */
export function dimensionsFor(ratio: string, size: string, multiple = 8, maxPixels?: number): { width: number; height: number } {
  const [rw, rh] = parseRatio(ratio);
  let long = longEdgePx(size);
  const round = (v: number): number => Math.max(multiple, Math.round(v / multiple) * multiple);
  const calc = (edge: number): { width: number; height: number } =>
    rw >= rh ? { width: round(edge), height: round((edge * rh) / rw) } : { width: round((edge * rw) / rh), height: round(edge) };
  let d = calc(long);
  if (maxPixels !== undefined && d.width * d.height > maxPixels) {
    long = long * Math.sqrt(maxPixels / (d.width * d.height));
    d = calc(Math.floor(long / multiple) * multiple);
    while (d.width * d.height > maxPixels) d = calc((long -= multiple));
  }
  return d;
}
