import { stemmer } from 'stemmer';

/**
 * The terms SQLite FTS5's `porter unicode61 remove_diacritics 2` tokenizer makes of a text, computed in
 * JavaScript so a PostgreSQL index can hold exactly the terms the lexical planner (domain/search/lexical.ts)
 * reasons about: it stems query words with the same `stemmer` package and asks the index which stems
 * it holds (`known`, `vocabulary`).
 *
 * Splitting and folding are those of the planner's own query splitter (domain/search/query-words.ts
 * `queryTerms`): NFKD, combining marks removed, lower case, runs of Unicode letters and digits. That is
 * unicode61 with remove_diacritics for the texts this library holds; it differs on compatibility
 * characters, which NFKD maps and unicode61 keeps ("ﬁsh" is "fish" here, "ﬁsh" in FTS5; "²" is "2").
 * Stemming: the Porter stemmer of the `stemmer` package, which agrees with FTS5's porter tokenizer on
 * every one of the 87,805 ASCII words of WordNet 3.1's index files (measured with SQLite's fts5vocab),
 * and, like FTS5 (fts5_tokenize.c FTS5_PORTER_MAX_TOKEN), leaves tokens over 64 bytes unstemmed.
 * https://www.sqlite.org/fts5.html#unicode61_tokenizer, https://tartarus.org/martin/PorterStemmer/
 */

/** FTS5's porter tokenizer passes longer tokens through unstemmed. */
const PORTER_MAX_BYTES = 64;
/**
 * PostgreSQL refuses longer lexemes in tsvector and tsquery input (MAXSTRLEN, 2^11 − 1 bytes,
 * https://www.postgresql.org/docs/15/textsearch-limitations.html): documents leave such tokens out, and
 * a query phrase holding one matches nothing (server/db/postgres/fts-tsquery.ts).
 */
export const MAX_LEXEME_BYTES = 2047;

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The words of `text` as the planner splits them (lower case, diacritics removed), unstemmed. */
export function ftsWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The Porter stem of one word of `ftsWords` (unchanged past 64 bytes, as FTS5). */
export function porterStem(word: string): string {
  return bytes(word) > PORTER_MAX_BYTES ? word : stemmer(word);
}

/** The index terms of `text`, in text order with repeats: `ftsWords` stemmed by `porterStem`. */
export function porterTokens(text: string): string[] {
  return ftsWords(text).map(porterStem);
}

/** Whether PostgreSQL accepts `term` as a lexeme (at most MAX_LEXEME_BYTES bytes). */
export const fitsLexeme = (term: string): boolean => bytes(term) <= MAX_LEXEME_BYTES;

/** PostgreSQL keeps at most this many positions per lexeme (https://www.postgresql.org/docs/15/textsearch-limitations.html). */
const MAX_POSITIONS = 256;
/** Positions past this are stored as this (ibid.). */
const MAX_POSITION = 16383;

/**
 * A weighted tsvector as its input text (`'lexeme':1A,4A 'other':3B`) from column texts and their weights:
 * Porter tokens (`porterTokens`) numbered across the columns in order, with a gap of one position between
 * columns so a phrase never spans two; lexemes too long for PostgreSQL are left out, positions capped as
 * PostgreSQL caps them; lexemes quoted and escaped. '' when no column holds a word.
 */
export function weightedTsvector(columns: [text: string, weight: 'A' | 'B' | 'C' | 'D'][]): string {
  const positions = new Map<string, string[]>();
  let pos = 0;
  for (const [text, weight] of columns) {
    for (const term of porterTokens(text)) {
      pos++;
      if (!fitsLexeme(term)) continue;
      const list = positions.get(term) ?? [];
      if (list.length < MAX_POSITIONS) list.push(`${Math.min(pos, MAX_POSITION)}${weight}`);
      positions.set(term, list);
    }
    pos++;
  }
  return [...positions].map(([term, ps]) => `'${term.replace(/\\/g, '\\\\').replace(/'/g, "''")}':${ps.join(',')}`).join(' ');
}
