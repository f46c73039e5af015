/**
 * Query words, split as the index tokenizes documents (FTS5's unicode61 tokenizer on SQLite, and the
 * same splitting on PostgreSQL, db/postgres/porter-tokens.ts): each word becomes a phrase of a lexical
 * expression (domain/search/lexical-query.ts), never an operator. Stop words are dropped unless the query
 * is nothing but stop words. unicode61: https://www.sqlite.org/fts5.html#unicode61_tokenizer
 */
export const STOP_WORDS = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were will with image images photo photos picture pictures of'.split(
    ' ',
  ),
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

/** A column of the asset lexical index (the exact-field search modes). */
export type LexicalColumn = 'name' | 'alt_text' | 'tags' | 'ocr_text';
