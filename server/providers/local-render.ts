import sharp, { type Sharp } from 'sharp';
import { hexToRgb, luminance, mix, type Recipe } from '../domain/generation/procedural.ts';

/**
 * Procedural rendering for the local provider: gradients and patterns are SVG documents rasterised by
 * sharp (librsvg), textures are seeded noise blended with sharp. Deterministic: the same recipe and
 * size give the same pixels. Shapes follow SVG 1.1 (https://www.w3.org/TR/SVG11/pservers.html).
 */

/** mulberry32 PRNG (public-domain, https://gist.github.com/tommyettinger/46a874533244883189143505d203312c). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function stops(colors: string[], transparent: boolean): string {
  return colors
    .map((c, i) => {
      const off = colors.length === 1 ? 0 : (i / (colors.length - 1)) * 100;
      const op = transparent ? (1 - i / Math.max(1, colors.length - 1)).toFixed(3) : '1';
      return `<stop offset="${off.toFixed(1)}%" stop-color="${c}" stop-opacity="${op}"/>`;
    })
    .join('');
}

function gradientVector(angleDeg: number): string {
  const r = (angleDeg * Math.PI) / 180;
  const x = Math.cos(r) / 2;
  const y = Math.sin(r) / 2;
  const f = (v: number): string => `${((0.5 + v) * 100).toFixed(2)}%`;
  return `x1="${f(-x)}" y1="${f(-y)}" x2="${f(x)}" y2="${f(y)}"`;
}

/** SVG markup of a pattern or gradient recipe at `w`×`h` px; transparent recipes leave the ground empty. */
export function recipeSvg(r: Recipe, w: number, h: number, transparent: boolean): string {
  const [c0, c1 = c0, c2 = c1] = r.colors as [string, ...string[]];
  const ground = transparent ? '' : `<rect width="100%" height="100%" fill="${c0}"/>`;
  const s = Math.max(4, Math.round(Math.min(w, h) * r.cell));
  const open = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">`;
  const patternOpen = (extra = '', ph = s): string =>
    `<defs><pattern id="p" width="${s}" height="${ph}" patternUnits="userSpaceOnUse" ${extra}>`;
  const fillPattern = '</pattern></defs><rect width="100%" height="100%" fill="url(#p)"/>';
  switch (r.kind) {
    case 'solid':
      return `${open}${transparent ? `<rect width="100%" height="100%" fill="${c0}" fill-opacity="0.5"/>` : ground}</svg>`;
    case 'radial':
      return `${open}<defs><radialGradient id="g" cx="50%" cy="45%" r="75%">${stops(
        [c1, c0, c2].filter((c, i, a) => a.indexOf(c) === i),
        transparent,
      )}</radialGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
    case 'stripes':
      return `${open}${ground}${patternOpen(`patternTransform="rotate(${r.angleDeg})"`)}<rect width="${Math.max(1, Math.round(s / 2))}" height="${s}" fill="${c1}"/>${fillPattern}</svg>`;
    case 'dots':
      return `${open}${ground}${patternOpen()}<circle cx="${s / 2}" cy="${s / 2}" r="${(s * 0.18).toFixed(2)}" fill="${c1}"/>${fillPattern}</svg>`;
    case 'grid':
      return `${open}${ground}${patternOpen()}<path d="M ${s} 0 L 0 0 0 ${s}" fill="none" stroke="${c1}" stroke-width="${Math.max(1, s / 24).toFixed(2)}"/>${fillPattern}</svg>`;
    case 'checker':
      return `${open}${ground}${patternOpen()}<rect width="${s / 2}" height="${s / 2}" fill="${c1}"/><rect x="${s / 2}" y="${s / 2}" width="${s / 2}" height="${s / 2}" fill="${c1}"/>${fillPattern}</svg>`;
    case 'chevron':
      return `${open}${ground}${patternOpen()}<polyline points="0,${s * 0.75} ${s / 2},${s * 0.25} ${s},${s * 0.75}" fill="none" stroke="${c1}" stroke-width="${(s / 6).toFixed(2)}"/>${fillPattern}</svg>`;
    case 'waves': {
      const amp = s * 0.25;
      return `${open}${ground}${patternOpen('', s / 2)}<path d="M 0 ${s / 4} Q ${s / 4} ${s / 4 - amp} ${s / 2} ${s / 4} T ${s} ${s / 4}" fill="none" stroke="${c1}" stroke-width="${(s / 12).toFixed(2)}"/>${fillPattern}</svg>`;
    }
    case 'blobs': {
      const rnd = mulberry32(r.seed);
      const n = 7;
      const circles = Array.from({ length: n }, (_, i) => {
        const c = r.colors[(i % Math.max(1, r.colors.length - 1)) + (r.colors.length > 1 ? 1 : 0)] ?? c1;
        return `<circle cx="${(rnd() * w).toFixed(1)}" cy="${(rnd() * h).toFixed(1)}" r="${((0.08 + rnd() * 0.18) * Math.min(w, h)).toFixed(1)}" fill="${c}" fill-opacity="${(0.35 + rnd() * 0.45).toFixed(2)}"/>`;
      }).join('');
      return `${open}${ground}${circles}</svg>`;
    }
    default:
      return `${open}<defs><linearGradient id="g" ${gradientVector(r.angleDeg)}>${stops(r.colors, transparent)}</linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
  }
}

/** Seeded grey noise, `w`×`h` single channel around mid-grey. */
function noiseRaw(seed: number, w: number, h: number, amplitude: number): Buffer {
  const rnd = mulberry32(seed);
  const buf = Buffer.allocUnsafe(w * h);
  for (let i = 0; i < buf.length; i++) {
    // sum of two uniforms: a cheap triangular approximation of Gaussian grain
    buf[i] = Math.max(0, Math.min(255, Math.round(128 + (rnd() + rnd() - 1) * amplitude)));
  }
  return buf;
}

/** Mesh gradient: soft colour fields rendered small, blurred and scaled up (smooth, cheap at 4K). */
async function meshPng(r: Recipe, w: number, h: number, transparent: boolean): Promise<Buffer> {
  const sw = 96;
  const sh = Math.max(8, Math.round((sw * h) / w));
  const rnd = mulberry32(r.seed);
  const blobs = r.colors
    .map(
      (c) =>
        `<circle cx="${(rnd() * sw).toFixed(1)}" cy="${(rnd() * sh).toFixed(1)}" r="${(sw * (0.25 + rnd() * 0.25)).toFixed(1)}" fill="${c}"/>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${sw}" height="${sh}">${transparent ? '' : `<rect width="100%" height="100%" fill="${r.colors[0]}"/>`}${blobs}</svg>`;
  const small = await sharp(Buffer.from(svg))
    .blur(sw / 10)
    .png()
    .toBuffer();
  return sharp(small).resize(w, h, { kernel: 'cubic' }).png().toBuffer();
}

/**
 * Render a recipe to a PNG of exactly `w`×`h` px (alpha kept when `transparent`).
 * Noise textures and grain use a blend of seeded noise over the base (soft-light).
 */
export async function renderRecipe(r: Recipe, w: number, h: number, transparent: boolean): Promise<Buffer> {
  let base: Sharp;
  if (r.kind === 'mesh') base = sharp(await meshPng(r, w, h, transparent));
  else if (r.kind === 'noise') {
    const [c0, c1 = c0] = r.colors as [string, ...string[]];
    const tr: Recipe = { ...r, kind: 'linear', colors: [c0, mix(c0, c1, 0.35)] };
    base = sharp(Buffer.from(recipeSvg(tr, w, h, transparent)));
  } else base = sharp(Buffer.from(recipeSvg(r, w, h, transparent)), { limitInputPixels: false });
  const png = await base.png().toBuffer();
  if (r.kind !== 'noise' && !r.grain) return png;
  // Grain at half resolution, scaled up: visible structure for textures, subtle film grain otherwise.
  const gw = Math.max(1, Math.ceil(w / 2));
  const gh = Math.max(1, Math.ceil(h / 2));
  const amplitude = r.kind === 'noise' ? (luminance(r.colors[0]!) > 0.5 ? 70 : 90) : 28;
  const grain = await sharp(noiseRaw(r.seed, gw, gh, amplitude), { raw: { width: gw, height: gh, channels: 1 } })
    .resize(w, h, { kernel: 'cubic' })
    .blur(r.kind === 'noise' ? 0.8 : 0.4)
    .toColourspace('srgb')
    .png()
    .toBuffer();
  return sharp(png)
    .composite([{ input: grain, blend: 'soft-light' }])
    .png()
    .toBuffer();
}

/** `#rrggbb` → sharp colour object. */
export function rgbOf(hex: string, alpha = 1): { r: number; g: number; b: number; alpha: number } {
  return { ...hexToRgb(hex), alpha };
}
