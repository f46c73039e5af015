import { createHash } from 'node:crypto';
import type { ProductStatus } from '../../shared/schemas/product.ts';
import { boundedOsa } from './search/typo.ts';

/**
 * A product as every catalog source (Admin GraphQL sync, Shopify CSV, products.json) hands it to the
 * read model. Prices are decimal strings exactly as the source wrote them; nothing is computed.
 */
export interface CatalogProductInput {
  gid: string;
  handle: string;
  title: string;
  description_html: string;
  status: ProductStatus;
  product_type: string;
  vendor: string;
  tags: string[];
  options: { name: string; values: string[] }[];
  images: { url: string; alt_text: string; width: number | null; height: number | null }[];
  variants: {
    gid: string;
    title: string;
    price: string;
    compare_at_price: string | null;
    sku: string;
    available: boolean;
    inventory_quantity: number | null;
    image_url: string | null;
    selected_options: { name: string; value: string }[];
  }[];
  /** Selling plan groups with their plans, as the platform gives them (snake_case keys). */
  selling_plan_groups: Record<string, unknown>[];
  /** Collections holding the product: handle and title (gid when synced). */
  collections: { handle: string; title: string; gid: string | null }[];
  /** Platform total inventory; null = sum of variant quantities. */
  total_inventory: number | null;
  platform_updated_at: string | null;
}

/**
 * A deterministic numeric id for a product or variant that a file import names only by handle (and
 * option values): the low 17 decimal digits of the first 64 bits of SHA-256 over a namespaced key, prefixed with 9 so it lies far
 * above the ids Shopify hands out (≤ 14 digits today) and cannot collide with a synced product.
 * Re-importing the same handle therefore updates the product instead of duplicating it.
 */
function stableNumericId(key: string): string {
  const h = createHash('sha256').update(key).digest();
  return `9${h.readBigUInt64BE(0).toString().padStart(20, '0').slice(-17)}`;
}

/** `gid://shopify/Product/<n>` derived from the handle (file imports). */
export function stableProductGid(handle: string): string {
  return `gid://shopify/Product/${stableNumericId(`atelier:product:${handle.toLowerCase()}`)}`;
}

/** `gid://shopify/ProductVariant/<n>` derived from the handle and the variant's option values. */
export function stableVariantGid(handle: string, optionValues: string[]): string {
  return `gid://shopify/ProductVariant/${stableNumericId(`atelier:variant:${handle.toLowerCase()}:${JSON.stringify(optionValues)}`)}`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Plain text of a product description: tags dropped, block ends as spaces, common entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
        return Number.isFinite(code) ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text a product is embedded from: title, type, vendor, tags, options and description (≤ 2000 chars). */
export function productEmbeddingText(p: {
  title: string;
  product_type: string;
  vendor: string;
  tags: string[];
  description_text: string;
  variant_titles: string[];
}): string {
  const variants = p.variant_titles.filter((t) => t && t !== 'Default Title');
  return [p.title, p.product_type, p.vendor, p.tags.join(', '), variants.join(', '), p.description_text]
    .filter((s) => s.length > 0)
    .join('. ')
    .slice(0, 2000);
}

/**
 * The handles to offer when a filter names a collection the store does not have: those within two edits
 * (optimal string alignment, domain/search/typo.ts) or sharing a word with it, nearest first, then by handle;
 * when none is near, the store's first handles, so the caller always sees real ones.
 * @param handles the store's handles, lower-cased
 * @returns at most `max` handles
 */
export function nearHandles(handle: string, handles: readonly string[], max = 5): string[] {
  const want = handle.toLowerCase();
  const words = new Set(want.split(/[-_\s]+/).filter((w) => w.length >= 3));
  const scored = handles
    .map((h) => {
      const d = boundedOsa(want, h, 2);
      const shared = h.split(/[-_\s]+/).some((w) => words.has(w));
      return { h, score: d <= 2 ? d : shared ? 3 : Infinity };
    })
    .filter((x) => x.score !== Infinity)
    .sort((x, y) => x.score - y.score || (x.h < y.h ? -1 : 1));
  return (scored.length > 0 ? scored.map((x) => x.h) : [...handles]).slice(0, max);
}

/** Is `s` a decimal string as Shopify writes money amounts ("19.99", "500", "0.5")? */
export function isDecimalString(s: string): boolean {
  return /^-?\d+(\.\d+)?$/.test(s);
}

/**
 * One spelling of a money amount whichever way the catalog was synced: at least two decimal places, as
 * Shopify's Admin GraphQL `Money` scalar gives them ("80" from a product CSV → "80.00", "19.9" → "19.90");
 * more places are kept ("0.125" stays). Leading zeros of the integer part are dropped ("007" → "7.00").
 * @param s a decimal string (`isDecimalString`); anything else is returned unchanged
 * Money scalar: https://shopify.dev/docs/api/admin-graphql/latest/scalars/Money
 */
export function canonicalPrice(s: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return s;
  const int = m[2]!.replace(/^0+(?=\d)/, '');
  const frac = (m[3] ?? '').padEnd(2, '0');
  return `${m[1]}${int}.${frac}`;
}
