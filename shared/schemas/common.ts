import { z } from 'zod';

/** A v4-style UUID string (lower or upper case hex, RFC 9562 layout). */
export const UuidSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a UUID')
  .describe('UUID');

/** Shopify product GID, `gid://shopify/Product/<numeric id>` (Shopify Admin GraphQL global id). */
export const ProductGidSchema = z
  .string()
  .regex(/^gid:\/\/shopify\/Product\/[0-9]+$/, 'must be a Shopify product GID like gid://shopify/Product/123')
  .describe('Shopify product GID, form gid://shopify/Product/<numeric_id>');

/** Shopify variant GID, `gid://shopify/ProductVariant/<numeric id>`. */
export const VariantGidSchema = z
  .string()
  .regex(/^gid:\/\/shopify\/ProductVariant\/[0-9]+$/, 'must be a Shopify variant GID')
  .describe('Shopify variant GID, form gid://shopify/ProductVariant/<numeric_id>');

/** Opaque page cursor handed out as `next_cursor`; bound to the query that produced it. */
export const CursorSchema = z.string().min(1).max(2048).describe('next_cursor of the previous page');

/** An absolute http(s) URL. */
export const HttpUrlSchema = z
  .string()
  .url('must be an absolute URL')
  .refine((u) => /^https?:\/\//i.test(u), 'must use http or https')
  .describe('absolute http(s) URL');

/** ISO 8601 UTC timestamp string. */
export const TimestampSchema = z.string().describe('ISO 8601 UTC timestamp');

/** Hex colour `#rgb` or `#rrggbb`. */
export const HexColorSchema = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex colour like #1a2b3c')
  .describe('hex colour');

/** Line and paragraph breaks and tabs: become one space in a file name. */
const NAME_BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
/**
 * Characters dropped from file names: C0/C1 controls and DEL, bidi embeddings, overrides, isolates and
 * marks (U+061C, U+200E/F, U+202A–E, U+2066–9: "Trojan Source", CVE-2021-42574), BOM.
 */
const NAME_UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu; // \p{Cc}: U+0000–001F, U+007F–009F

/**
 * One line of user text as stored (file name, tag, alt text): Unicode NFC, breaks and tabs as one space,
 * control and bidi-formatting characters removed, runs of spaces collapsed, trimmed.
 */
export function cleanText(text: string): string {
  return text.normalize('NFC').replace(NAME_BREAKS, ' ').replace(NAME_UNSAFE, '').replace(/ {2,}/g, ' ').trim();
}

/** A file name as stored: `cleanText`. Every path that sets a name applies it (and server/domain/media/file-name.ts after it). */
export const cleanFileName = cleanText;

/** A user-authored tag: 1–64 characters after `cleanText` (no controls or bidi characters). */
export const TagSchema = z.string().overwrite(cleanText).min(1, 'must not be empty').max(64, 'must be at most 64 characters');

/** User alt text: at most 1000 characters after `cleanText`. */
export const AltTextSchema = z.string().overwrite(cleanText).max(1000, 'must be at most 1000 characters');

/**
 * A file name argument, taken as written: the server stores it made safe (server/domain/media/file-name.ts
 * `safeFileName`: basename, no control or bidi characters, the real format's extension, ≤ 255 bytes) and
 * says in `name_changed` what it had to change, so the schema must not clean it first.
 */
export const FileNameSchema = z
  .string()
  .refine((s) => cleanFileName(s) !== '', 'must hold a visible character (control and bidi characters are removed)');

/**
 * Index state of a search (issue 33): how much of the searched scope is still being analysed. Present
 * only while something is pending (absent = everything searchable is analysed), so a settled library
 * costs no tokens.
 */
export const IndexingSchema = z
  .object({
    pending: z.number().int().min(1).describe('items of the scope whose analysis is not finished yet'),
    total: z.number().int().min(1).describe('all items of the scope'),
  })
  .describe(
    'present only while items are still being analysed (for assets: OCR, colours, tags, alt text, embeddings; for products: embeddings): until then they can be missing from the results. When nothing matched, retry shortly before generating or concluding it is absent. Absent when nothing is pending',
  );
export type Indexing = z.infer<typeof IndexingSchema>;
