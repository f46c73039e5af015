import { extensionFor, safeFileName, type NameChange } from './file-name.ts';

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

/**
 * File name for an import (spec §4.6: "derived from URL or MIME type when omitted"): a supplied name made
 * safe by `safeFileName` (basename, no controls or bidi characters, the real format's extension, ≤ 255
 * bytes), else the last URL path segment when it looks like a file name, else `image-<sha8>`; the
 * extension follows the real format (a HEIC/HEIF→PNG conversion swaps it).
 * @returns the name and, for a supplied name, what had to change in it (empty when stored as given)
 */
export function deriveFilename(opts: {
  userFilename?: string | undefined;
  url?: string | undefined;
  format: string;
  convertedFrom: string | null;
  sha256: string;
}): { name: string; changed: NameChange[] } {
  const ext = extensionFor(opts.format);
  if (opts.userFilename) {
    const safe = safeFileName(opts.userFilename, opts.format);
    if (safe.name) {
      // A HEIC the user named .heic is stored as PNG: the new extension is expected, not a correction.
      const expected = opts.convertedFrom !== null && /\.(heic|heif)$/i.test(opts.userFilename);
      return { name: safe.name, changed: expected ? safe.changed.filter((c) => c !== 'extension') : safe.changed };
    }
  }
  const changed: NameChange[] = opts.userFilename ? ['characters'] : [];
  if (opts.url) {
    const seg = new URL(opts.url).pathname.split('/').filter(Boolean).pop() ?? '';
    const safe = safeFileName(seg, opts.format);
    if (safe.name) return { name: safe.name, changed };
  }
  return { name: `image-${opts.sha256.slice(0, 8)}.${ext}`, changed };
}
