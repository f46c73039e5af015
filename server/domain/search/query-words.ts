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

/** Lower-cased word tokens in order, accents removed, split where FTS5's unicode61 tokenizer splits text (queries and, for checks against the index, documents). */
export function indexWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Lower-cased word tokens of a query, split like FTS5's unicode61 tokenizer splits text. */
export function queryTerms(text: string): string[] {
  const words = indexWords(text);
  const content = words.filter((w) => !STOP_WORDS.has(w));
  return [...new Set(content.length > 0 ? content : words)].slice(0, 16);
}

/** A column of the asset lexical index (the exact-field search modes). */
export type LexicalColumn = 'name' | 'alt_text' | 'tags' | 'ocr_text';

/** Words that open a phrase after a noun phrase's head ("gift for a gardener", "shirt with pockets"). */
const PREPOSITIONS = new Set([
  'about',
  'at',
  'by',
  'for',
  'from',
  'in',
  'into',
  'like',
  'near',
  'of',
  'on',
  'over',
  'to',
  'under',
  'with',
  'without',
]);

/**
 * The head word of a noun-phrase query: its last content word before the first preposition, else its last
 * content word ("black leather choker" → choker, "gift for a gardener" → gift). In English a noun phrase's
 * modifiers come before its head and its complements after it (Quirk et al., "A Comprehensive Grammar of the
 * English Language", 1985, ch. 17), so the head names the kind of thing asked for and the rest narrows it.
 * @returns the head as `queryTerms` spells it, or null when the query has fewer than two content words
 */
export function headWord(text: string): string | null {
  if (queryTerms(text).length < 2) return null;
  const words = indexWords(text);
  const end = words.findIndex((w, i) => i > 0 && PREPOSITIONS.has(w));
  const before = (end < 0 ? words : words.slice(0, end)).filter((w) => !STOP_WORDS.has(w));
  return before.at(-1) ?? null;
}
