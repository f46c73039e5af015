import { cleanFileName } from '../../shared/schemas/common.ts';
import { nameWords } from './alt-text.ts';

/**
 * Pure helpers that derive library metadata: category/subtype from a purpose, a short usage hint from
 * purpose, category and proportions, and file names from URLs or MIME types.
 */

import { orientationOf } from './alt-text.ts';

const PURPOSE_TAXONOMY: Record<string, [string, string]> = {
  hero_bg: ['background', 'hero-bg'],
  section_bg: ['background', 'section-bg'],
  card_bg: ['background', 'card-bg'],
  texture_fill: ['texture', 'texture-fill'],
  pattern_tile: ['texture', 'pattern-tile'],
  decorative_element: ['decorative', 'decorative-element'],
  product_lifestyle: ['lifestyle', 'editorial'],
  product_composite: ['product', 'composite'],
  product_shot: ['product', 'product-shot'],
  trust_icon: ['logos_trust', 'trust-icon'],
  logo: ['logos_trust', 'logo'],
  badge: ['logos_trust', 'badge'],
};

/** Category and subtype implied by a purpose such as `hero_bg` or `trust_icon`; null when unknown. */
export function taxonomyForPurpose(purpose: string | null | undefined): { category: string; subtype: string } | null {
  const hit = purpose ? PURPOSE_TAXONOMY[purpose.toLowerCase().replace(/[-\s]/g, '_')] : undefined;
  return hit ? { category: hit[0], subtype: hit[1] } : null;
}

/**
 * Short suggested use for an asset (spec §2 `usage_hint`), from its purpose, category and proportions.
 * @param width px, or null when unknown
 */
export function usageHint(a: {
  kind: string;
  purpose: string | null;
  category: string | null;
  subtype: string | null;
  width: number | null;
  height: number | null;
}): string {
  if (a.kind === 'video') return 'background or hero video';
  if (a.kind === 'svg' || a.category === 'logos_trust') return 'logo, icon or trust badge (scales cleanly)';
  if (a.purpose) return `${a.purpose.replace(/_/g, ' ')}`;
  if (a.subtype === 'pattern-tile' || a.subtype === 'texture-fill') return 'texture or pattern fill';
  const orientation = orientationOf(a.width, a.height);
  if (!a.width || !a.height || !orientation) return 'section media';
  const small = Math.max(a.width, a.height) < 400;
  if (small) return 'icon, thumbnail or small card image';
  // The proportions word is the asset's `orientation` (same 5% rule), so the two never disagree.
  if (orientation === 'square') return 'card, tile or gallery image (square)';
  if (orientation === 'portrait') return 'product gallery or mobile hero (portrait)';
  if (a.width / a.height >= 1.6)
    return a.width >= 1600 ? 'hero or full-width background (wide landscape)' : 'banner or section background (wide landscape)';
  return 'section image, card or slide (landscape)';
}

const EXT_BY_FORMAT: Record<string, string> = {
  jpeg: 'jpg',
  png: 'png',
  webp: 'webp',
  gif: 'gif',
  avif: 'avif',
  tiff: 'tiff',
  svg: 'svg',
  heic: 'heic',
  heif: 'heif',
  mp4: 'mp4',
  webm: 'webm',
  mov: 'mov',
};

/** Extension for a sniffed format. */
export function extensionFor(format: string): string {
  return EXT_BY_FORMAT[format] ?? format;
}

/** Replace or add the extension of a file name. */
export function withExtension(name: string, ext: string): string {
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  return `${stem}.${ext}`;
}

/**
 * File name for an import (spec §4.6: "derived from URL or MIME type when omitted"): the last URL
 * path segment when it looks like a file name, else `image-<sha8>`; the extension follows the real
 * format. A user-supplied name is kept, except that a HEIC/HEIF→PNG conversion swaps its extension.
 */
export function deriveFilename(opts: {
  userFilename?: string | undefined;
  url?: string | undefined;
  format: string;
  convertedFrom: string | null;
  sha256: string;
}): string {
  const ext = extensionFor(opts.format);
  const user = opts.userFilename ? cleanFileName(opts.userFilename) : '';
  if (user) {
    const n = user.replace(/[/\\]/g, '_');
    return opts.convertedFrom && /\.(heic|heif)$/i.test(n) ? withExtension(n, ext) : n;
  }
  if (opts.url) {
    try {
      const seg = decodeURIComponent(new URL(opts.url).pathname.split('/').filter(Boolean).pop() ?? '');
      const clean = seg.replace(/[^\p{L}\p{N}._ -]+/gu, '_').slice(0, 200);
      if (/[\p{L}\p{N}]/u.test(clean)) return withExtension(clean, ext);
    } catch {
      /* fall through to the generic name */
    }
  }
  return `image-${opts.sha256.slice(0, 8)}.${ext}`;
}

/** Words of a file name usable as alt text and tags: `el_torcal_rocks.jpg` → ['el', 'torcal', 'rocks'] (see alt-text.ts `nameWords`). */
export function nameWordList(filename: string): string[] {
  return nameWords(filename).split(' ').filter(Boolean);
}
