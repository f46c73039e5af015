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

/** A user-authored tag: 1–64 characters after trimming. */
export const TagSchema = z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters');

/** Line and paragraph breaks and tabs: become one space in a file name. */
const NAME_BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
/**
 * Characters dropped from file names: C0/C1 controls and DEL, bidi embeddings, overrides, isolates and
 * marks (U+061C, U+200E/F, U+202A–E, U+2066–9: "Trojan Source", CVE-2021-42574), BOM.
 */
const NAME_UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu; // \p{Cc}: U+0000–001F, U+007F–009F

/**
 * A file name as stored: Unicode NFC, breaks and tabs as one space, control and bidi-formatting
 * characters removed, runs of spaces collapsed, trimmed. Every path that sets a name applies it.
 */
export function cleanFileName(name: string): string {
  return name.normalize('NFC').replace(NAME_BREAKS, ' ').replace(NAME_UNSAFE, '').replace(/ {2,}/g, ' ').trim();
}

/** A file name argument, normalised by `cleanFileName` before its length rules apply. */
export const FileNameSchema = z.string().overwrite(cleanFileName);
