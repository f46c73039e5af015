/**
 * Query words as the FTS5 unicode61 tokenizer splits text (so user text never becomes FTS5 operators:
 * domain/search/lexical.ts quotes each word). Stop words are dropped unless the query is nothing but stop words.
 * FTS5 query grammar: https://www.sqlite.org/fts5.html#full_text_query_syntax
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

/** An FTS5 column of the asset index (exact-field search modes). */
export type FtsColumn = 'name' | 'alt_text' | 'tags' | 'ocr_text';
