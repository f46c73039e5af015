/**
 * Pure colour maths for enrichment: sRGB → CIELAB, colour naming, dominant colours, and the visual
 * descriptor behind `similar` search. Formulas: sRGB (IEC 61966-2-1) → XYZ (D65) → CIELAB
 * (CIE 15:2004), as tabulated at http://www.brucelindbloom.com/index.html?Eqn_RGB_to_XYZ.html.
 */

export type Lab = [number, number, number];

const lin = (c: number): number => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};
const LIN = Float64Array.from({ length: 256 }, (_, i) => lin(i));
const f = (t: number): number => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);

/** CIELAB (D65) of an 8-bit sRGB colour: L in 0–100, a and b roughly −128…127. */
export function srgbToLab(r: number, g: number, b: number): Lab {
  const R = LIN[r]!,
    G = LIN[g]!,
    B = LIN[b]!;
  const x = (0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / 0.95047;
  const y = 0.2126729 * R + 0.7151522 * G + 0.072175 * B;
  const z = (0.0193339 * R + 0.119192 * G + 0.9503041 * B) / 1.08883;
  const fx = f(x),
    fy = f(y),
    fz = f(z);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** Basic colour terms (Berlin & Kay's 11 plus beige, teal and olive) with a representative sRGB. */
const PALETTE: { name: string; rgb: [number, number, number] }[] = [
  { name: 'red', rgb: [200, 30, 35] },
  { name: 'orange', rgb: [240, 130, 30] },
  { name: 'yellow', rgb: [240, 215, 40] },
  { name: 'olive', rgb: [120, 120, 40] },
  { name: 'green', rgb: [60, 150, 60] },
  { name: 'teal', rgb: [30, 130, 130] },
  { name: 'blue', rgb: [40, 90, 200] },
  { name: 'purple', rgb: [120, 60, 160] },
  { name: 'pink', rgb: [240, 150, 190] },
  { name: 'brown', rgb: [120, 75, 40] },
  { name: 'beige', rgb: [220, 200, 165] },
];
const PALETTE_LAB = PALETTE.map((p) => ({ name: p.name, lab: srgbToLab(...p.rgb) }));

/** Every name `colourName` can return (the automatic colour tags enrichment writes). */
export const COLOUR_NAMES: ReadonlySet<string> = new Set([...PALETTE.map((p) => p.name), 'black', 'white', 'grey']);

/** Name of a colour: achromatic by lightness when chroma is low, else the nearest palette entry (ΔE76). */
export function colourName(lab: Lab): string {
  const [L, a, b] = lab;
  const chroma = Math.hypot(a, b);
  if (chroma < 12 || (L < 18 && chroma < 20)) return L < 22 ? 'black' : L > 88 ? 'white' : 'grey';
  let best = PALETTE_LAB[0]!;
  let bestD = Infinity;
  for (const p of PALETTE_LAB) {
    const d = (L - p.lab[0]) ** 2 * 0.5 + (a - p.lab[1]) ** 2 + (b - p.lab[2]) ** 2;
    if (d < bestD) {
      bestD = d;
      best = p;
    }
  }
  return best.name;
}

/** A dominant colour: mean sRGB hex of the pixels with that name and their share of the image (0–1). */
export interface DominantColour {
  hex: string;
  name: string;
  share: number;
}

const hex = (r: number, g: number, b: number): string => `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

/**
 * Dominant colours of an RGB(A) raster, by colour name: every name covering at least `minShare` of
 * the pixels, largest first (at most 5). Fully transparent pixels are ignored.
 */
export function dominantColours(px: Uint8Array, channels: number, minShare = 0.08): DominantColour[] {
  const acc = new Map<string, { n: number; r: number; g: number; b: number }>();
  let total = 0;
  for (let i = 0; i + channels - 1 < px.length; i += channels) {
    if (channels === 4 && px[i + 3]! < 16) continue;
    const r = px[i]!,
      g = px[i + 1]!,
      b = px[i + 2]!;
    const name = colourName(srgbToLab(r, g, b));
    const e = acc.get(name) ?? { n: 0, r: 0, g: 0, b: 0 };
    e.n++;
    e.r += r;
    e.g += g;
    e.b += b;
    acc.set(name, e);
    total++;
  }
  if (total === 0) return [];
  return [...acc.entries()]
    .map(([name, e]) => ({ name, hex: hex(e.r / e.n, e.g / e.n, e.b / e.n), share: Math.round((e.n / total) * 1000) / 1000 }))
    .filter((c) => c.share >= minShare)
    .sort((x, y) => y.share - x.share)
    .slice(0, 5);
}

/** Automatic tag of a picture without hue (a black-and-white photo, a greyscale chart). */
export const MONOCHROME = 'monochrome';
/**
 * CIELAB chroma (C*ab) below which a pixel shows no hue. Compression leaves chroma under 2 in greyscale
 * photos; in the demo set the least colourful colour photo (handwritten notes on grey paper) has 10% of
 * its pixels above 7.
 */
const ACHROMATIC_CHROMA = 6;
/** Share of the pixels that may show a hue in a monochrome picture (specks, a coloured signature). */
const HUED_SHARE = 0.01;

/**
 * Whether an RGB(A) raster is monochrome: at most 1% of its (not fully transparent) pixels have a
 * CIELAB chroma of 6 or more. Sepia and other tinted pictures are not (their pixels all have a hue).
 * @returns false for a raster with no opaque pixel
 */
export function isMonochrome(px: Uint8Array, channels: number): boolean {
  let total = 0;
  let hued = 0;
  for (let i = 0; i + channels - 1 < px.length; i += channels) {
    if (channels === 4 && px[i + 3]! < 16) continue;
    const [, a, b] = srgbToLab(px[i]!, px[i + 1]!, px[i + 2]!);
    total++;
    if (Math.hypot(a, b) >= ACHROMATIC_CHROMA) hued++;
  }
  return total > 0 && hued <= HUED_SHARE * total;
}

/** Length of `visualDescriptor`: 64 Lab histogram bins + 4×4×3 colour layout + 64 dHash bits. */
export const VISUAL_DIMENSIONS = 176;
/** Version of the descriptor; part of the visual space's model id. */
export const VISUAL_MODEL_ID = 'visual:lab-hist64+layout4x4+dhash64@1';

function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/**
 * Visual descriptor of an image for `similar` search, one unit vector from three equally weighted
 * unit blocks:
 * 1. a 4×4×4 CIELAB colour histogram (Hellinger-mapped: √ of bin shares), perceptual colour content;
 * 2. a 4×4 grid of mean Lab colours (the idea of MPEG-7 Colour Layout), where the colours are;
 * 3. a 64-bit difference hash (dHash, N. Krawetz, https://www.hackerfactor.com/blog/index.php?/archives/529-Kind-of-Like-That.html)
 *    as ±1 values, so re-encoded/resized copies (same bits) score near 1 and lead the ranking.
 * @param rgb raw RGB raster of `size`×`size` px (3 channels), aspect ratio ignored
 * @param grey9x8 raw 9×8 px greyscale raster (1 channel) for the dHash
 */
export function visualDescriptor(rgb: Uint8Array, size: number, grey9x8: Uint8Array): Float32Array {
  const hist = new Float32Array(64);
  const layout = new Float32Array(48);
  const cellCount = new Float32Array(16);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 3;
      const [L, a, b] = srgbToLab(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!);
      const li = Math.min(3, Math.floor(L / 25));
      const ai = Math.min(3, Math.max(0, Math.floor((a + 64) / 32)));
      const bi = Math.min(3, Math.max(0, Math.floor((b + 64) / 32)));
      hist[li * 16 + ai * 4 + bi]! += 1;
      const cell = Math.min(3, Math.floor((y * 4) / size)) * 4 + Math.min(3, Math.floor((x * 4) / size));
      layout[cell * 3]! += L / 100;
      layout[cell * 3 + 1]! += a / 128;
      layout[cell * 3 + 2]! += b / 128;
      cellCount[cell]! += 1;
    }
  }
  const n = size * size;
  for (let i = 0; i < 64; i++) hist[i] = Math.sqrt(hist[i]! / n);
  for (let c = 0; c < 16; c++) for (let k = 0; k < 3; k++) layout[c * 3 + k]! /= Math.max(1, cellCount[c]!);
  // Centre the layout on its mean so two unrelated images do not look alike just by being bright.
  const mean = [0, 0, 0];
  for (let c = 0; c < 16; c++) for (let k = 0; k < 3; k++) mean[k]! += layout[c * 3 + k]! / 16;
  for (let c = 0; c < 16; c++) for (let k = 0; k < 3; k++) layout[c * 3 + k]! -= mean[k]! * 0.5;
  const hash = new Float32Array(64);
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) hash[y * 8 + x] = grey9x8[y * 9 + x]! < grey9x8[y * 9 + x + 1]! ? 1 : -1;
  const out = new Float32Array(VISUAL_DIMENSIONS);
  out.set(unit(hist), 0);
  out.set(unit(layout), 64);
  out.set(unit(hash), 112);
  return unit(out);
}
