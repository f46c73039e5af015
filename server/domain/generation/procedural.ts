/**
 * Recipes of the local procedural generator: which background, texture or pattern a prompt, style and
 * purpose ask for, in which colours. Pure; the sharp rendering lives in providers/local-render.ts.
 */

export type RecipeKind =
  'linear' | 'radial' | 'mesh' | 'solid' | 'noise' | 'stripes' | 'dots' | 'grid' | 'checker' | 'chevron' | 'waves' | 'blobs';

export interface Recipe {
  kind: RecipeKind;
  /** palette as `#rrggbb`, 2–6 colours, dominant first */
  colors: string[];
  /** gradient / stripe angle in degrees (0 = left → right) */
  angleDeg: number;
  /** add film grain over the base (texture words or texture purposes) */
  grain: boolean;
  /** deterministic seed derived from the prompt (FNV-1a) */
  seed: number;
  /** pattern cell size as a fraction of the shorter canvas edge */
  cell: number;
  /** words that chose the recipe, for the result notes */
  because: string[];
}

/** CSS named colours commonly used in prompts (subset of CSS Color Module Level 4 §6.1). */
const NAMED: Record<string, string> = {
  black: '#000000',
  white: '#ffffff',
  ivory: '#fffff0',
  cream: '#f5efe0',
  beige: '#f5f5dc',
  sand: '#d8c8a8',
  gray: '#808080',
  grey: '#808080',
  charcoal: '#36454f',
  silver: '#c0c0c0',
  red: '#c0392b',
  crimson: '#dc143c',
  coral: '#ff7f50',
  orange: '#e67e22',
  peach: '#ffcba4',
  gold: '#d4af37',
  yellow: '#f1c40f',
  mustard: '#d6a419',
  olive: '#808000',
  green: '#2e8b57',
  sage: '#9caf88',
  mint: '#98ff98',
  teal: '#008080',
  turquoise: '#40e0d0',
  cyan: '#00bcd4',
  blue: '#2e86de',
  navy: '#1f2a44',
  indigo: '#4b0082',
  purple: '#8e44ad',
  violet: '#8f5fbf',
  lavender: '#b8a9d9',
  pink: '#f4a7b9',
  rose: '#e8a0a8',
  blush: '#f3d1d1',
  brown: '#8b5a2b',
  walnut: '#5d432c',
  terracotta: '#c46a4a',
  slate: '#5f6b7a',
  forest: '#228b22',
  emerald: '#2ecc71',
  burgundy: '#800020',
};

const DEFAULT_PALETTE = ['#f4efe6', '#d9cbb6', '#8c7a66'];

/** FNV-1a 32-bit hash (http://www.isthe.com/chongo/tech/comp/fnv/), used as a deterministic seed. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** `#abc` / `#aabbcc` → `#aabbcc` (lower case). */
export function normaliseHex(hex: string): string {
  const h = hex.replace('#', '').toLowerCase();
  return `#${h.length === 3 ? [...h].map((c) => c + c).join('') : h}`;
}

/** `#rrggbb` → `{r, g, b}` 0–255. */
export function hexToRgb(hex: string): { r: number; g: number; b: number } {
  const h = normaliseHex(hex).slice(1);
  return { r: parseInt(h.slice(0, 2), 16), g: parseInt(h.slice(2, 4), 16), b: parseInt(h.slice(4, 6), 16) };
}

/** Relative luminance 0–1 (WCAG 2.x definition, sRGB). */
export function luminance(hex: string): number {
  const { r, g, b } = hexToRgb(hex);
  const lin = (c: number): number => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/**
 * The palette: `brand_colors` when given (in order), else colour words of the prompt (in order of
 * appearance), else a neutral warm default. Always 2+ colours (a single colour gets a lighter twin).
 */
export function paletteFor(
  prompt: string,
  brandColors: string[] | undefined,
): { colors: string[]; source: 'brand_colors' | 'prompt' | 'default' } {
  let colors: string[];
  let source: 'brand_colors' | 'prompt' | 'default';
  if (brandColors && brandColors.length > 0) {
    colors = brandColors.map(normaliseHex);
    source = 'brand_colors';
  } else {
    const words = prompt.toLowerCase().match(/[a-z]+/g) ?? [];
    const hexes = prompt.match(/#(?:[0-9a-f]{6}|[0-9a-f]{3})\b/gi) ?? [];
    colors = [...new Set([...hexes.map(normaliseHex), ...words.filter((w) => w in NAMED).map((w) => NAMED[w]!)])];
    source = colors.length ? 'prompt' : 'default';
    if (!colors.length) colors = DEFAULT_PALETTE;
  }
  if (colors.length === 1) colors = [colors[0]!, mix(colors[0]!, '#ffffff', 0.55)];
  return { colors: colors.slice(0, 6), source };
}

/** Linear mix of two hex colours, `t` = share of `b`. */
export function mix(a: string, b: string, t: number): string {
  const x = hexToRgb(a);
  const y = hexToRgb(b);
  const c = (p: number, q: number): string =>
    Math.round(p + (q - p) * t)
      .toString(16)
      .padStart(2, '0');
  return `#${c(x.r, y.r)}${c(x.g, y.g)}${c(x.b, y.b)}`;
}

const PATTERN_WORDS: [RegExp, RecipeKind][] = [
  [/\bstripe[sd]?\b|\bpinstripe/, 'stripes'],
  [/\bpolka\b|\bdots?\b|\bdotted\b|\bspeckle/, 'dots'],
  [/\bgrid\b|\bgraph paper\b/, 'grid'],
  [/\bcheck(?:er|ered|erboard|s)?\b|\bgingham\b|\bplaid\b/, 'checker'],
  [/\bchevron\b|\bzig-?zag\b|\bherringbone\b/, 'chevron'],
  [/\bwaves?\b|\bwavy\b|\bripples?\b/, 'waves'],
  [/\bblobs?\b|\bbokeh\b|\bcircles?\b|\borganic shapes?\b/, 'blobs'],
  [/\bmesh\b|\baurora\b/, 'mesh'],
  [/\bradial\b|\bspotlight\b|\bvignette\b|\bglow\b/, 'radial'],
  [/\bsolid\b|\bplain\b|\bflat colou?r\b/, 'solid'],
  [/\bgradient\b|\bfade\b|\bombre\b/, 'linear'],
  [/\bnoise\b|\bpaper\b|\bconcrete\b|\bstone\b|\blinen\b|\bcanvas\b|\bplaster\b|\bmarble\b|\bgranite\b|\bterrazzo\b/, 'noise'],
];

/**
 * Choose the recipe for a prompt/style/purpose: explicit pattern or texture words win; otherwise
 * `pattern_tile` → stripes, `texture_fill` or style `texture` → noise, `decorative_element` → blobs,
 * everything else (hero/section/card backgrounds, lifestyle) → a linear gradient.
 */
export function planRecipe(input: { prompt: string; style: string; purpose: string; brandColors?: string[] | undefined }): Recipe {
  const p = input.prompt.toLowerCase();
  const because: string[] = [];
  let kind: RecipeKind | undefined;
  for (const [re, k] of PATTERN_WORDS) {
    const m = re.exec(p);
    if (m) {
      kind = k;
      because.push(`"${m[0]}"`);
      break;
    }
  }
  if (!kind) {
    kind =
      input.purpose === 'pattern_tile'
        ? 'stripes'
        : input.purpose === 'texture_fill' || input.style === 'texture'
          ? 'noise'
          : input.purpose === 'decorative_element'
            ? 'blobs'
            : 'linear';
    because.push(`purpose ${input.purpose}, style ${input.style}`);
  }
  const angle = /\bvertical\b/.test(p) ? 90 : /\bhorizontal\b/.test(p) ? 0 : /\bdiagonal\b/.test(p) ? 45 : kind === 'stripes' ? 45 : 120;
  const grain =
    kind !== 'noise' && (/\b(grain|grainy|texture[d]?|film)\b/.test(p) || input.style === 'texture' || input.style === 'photography');
  const cell = /\b(fine|small|tiny|thin)\b/.test(p) ? 0.04 : /\b(bold|large|big|wide)\b/.test(p) ? 0.16 : 0.08;
  return {
    kind,
    colors: paletteFor(input.prompt, input.brandColors).colors,
    angleDeg: angle,
    grain,
    seed: fnv1a(`${input.prompt}|${input.style}|${input.purpose}`),
    cell,
    because,
  };
}
