import type { AssetProvenance } from './ports/asset-store.ts';

/*
 * Both backends keep the list and provenance columns of `assets` as JSON text (SQLite has no JSON type;
 * PostgreSQL migration 0003 keeps the same text, which its triggers read as jsonb). The adapters decode
 * them here into the port's plain shapes, as asset-cards.ts shares the card columns.
 */

/** A stored JSON array of strings (`tags`, `auto_tags`, `user_fields`) as an array, non-strings dropped. @throws SyntaxError on malformed JSON */
export function jsonStrings(text: string): string[] {
  // `[]` is most rows' automatic or user tags: no parse
  if (text === '[]') return [];
  const v: unknown = JSON.parse(text);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** A stored `provenance` as an object; null for none (or a value that is not an object). @throws SyntaxError on malformed JSON */
export function jsonProvenance(text: string | null): AssetProvenance | null {
  if (!text) return null;
  const v: unknown = JSON.parse(text);
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as AssetProvenance) : null;
}

/** The JSON text stored for a provenance (null for none). */
export const provenanceJson = (p: AssetProvenance | null): string | null => (p === null ? null : JSON.stringify(p));
