/**
 * Turn free user text into FTS5 MATCH syntax safely (no operator injection): each word becomes a
 * quoted prefix term `"word"*`. Stop words are dropped unless the query is nothing but stop words.
 * FTS5 query grammar: https://www.sqlite.org/fts5.html#full_text_query_syntax
 */
const STOP_WORDS = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were will with image images photo photos picture pictures of'.split(' '),
);

/** Lower-cased word tokens of a query, split like FTS5's unicode61 tokenizer splits text. */
export function queryTerms(text: string): string[] {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const content = words.filter((w) => !STOP_WORDS.has(w));
  return [...new Set(content.length > 0 ? content : words)].slice(0, 16);
}

export type FtsColumn = 'name' | 'alt_text' | 'tags' | 'ocr_text';

/**
 * Build a MATCH expression.
 * @param terms from `queryTerms`
 * @param op 'AND' requires every term, 'OR' any term
 * @param column restrict to one FTS column (exact-field modes), or all columns when null
 * @returns the expression, or null when there is nothing to match
 */
export function buildMatch(terms: string[], op: 'AND' | 'OR', column: FtsColumn | null): string | null {
  if (terms.length === 0) return null;
  const body = terms.map((t) => `"${t.replace(/"/g, '""')}"*`).join(` ${op} `);
  return column ? `{${column}} : (${body})` : body;
}
