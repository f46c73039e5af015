/**
 * Pure helpers that derive library metadata: category/subtype from a purpose, a short usage hint from
 * purpose, category and proportions, and file names from URLs or MIME types.
 */

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
export function usageHint(a: { kind: string; purpose: string | null; category: string | null; subtype: string | null; width: number | null; height: number | null }): string {
  if (a.kind === 'video') return 'background or hero video';
  if (a.kind === 'svg' || a.category === 'logos_trust') return 'logo, icon or trust badge (scales cleanly)';
  if (a.purpose) return `${a.purpose.replace(/_/g, ' ')}`;
  if (a.subtype === 'pattern-tile' || a.subtype === 'texture-fill') return 'texture or pattern fill';
  if (!a.width || !a.height) return 'section media';
  const ratio = a.width / a.height;
  const small = Math.max(a.width, a.height) < 400;
  if (small) return 'icon, thumbnail or small card image';
  if (ratio >= 1.6) return a.width >= 1600 ? 'hero or full-width section background (wide landscape)' : 'section background or banner (wide landscape)';
  if (ratio >= 1.15) return 'section image, card or carousel slide (landscape)';
  if (ratio > 0.87) return 'card, tile or gallery image (square)';
  return 'product gallery, split-section or mobile hero image (portrait)';
}

const EXT_BY_FORMAT: Record<string, string> = { jpeg: 'jpg', png: 'png', webp: 'webp', gif: 'gif', avif: 'avif', tiff: 'tiff', svg: 'svg', heic: 'heic', heif: 'heif', mp4: 'mp4', webm: 'webm', mov: 'mov' };

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
export function deriveFilename(opts: { userFilename?: string | undefined; url?: string | undefined; format: string; convertedFrom: string | null; sha256: string }): string {
  const ext = extensionFor(opts.format);
  if (opts.userFilename) {
    const n = opts.userFilename.replace(/[/\\]/g, '_');
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

/** Words of a file name usable as alt text and tags: `el_torcal_rocks.jpg` → ['el', 'torcal', 'rocks']. */
export function nameWords(filename: string): string[] {
  const stem = filename.replace(/\.[a-z0-9]{2,5}$/i, '');
  return stem
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 1 && !/^\d+$/.test(w) && !/^(img|dsc|image|photo|pxl)$/.test(w));
}
