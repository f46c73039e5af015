/**
 * Query words for the lexical planner (domain/search/lexical.ts): splitting and FTS5 phrase syntax
 * (https://www.sqlite.org/fts5.html#full_text_query_syntax), operator synonym rules, spelling
 * corrections written back into the query, and the written form of a stem. Pure functions.
 */
import { stemmer } from 'stemmer';

/** One rule of an operator synonym list (Algolia/Shopify style). */
export interface SynonymRule {
  /** two_way: every word stands for every other; one_way: `input` also finds `words`, not back */
  kind: 'two_way' | 'one_way';
  input: string | null;
  words: string[];
}

/** An FTS5 phrase: `text` in double quotes, inner quotes doubled. */
export const quote = (text: string): string => `"${text.replace(/"/g, '""')}"`;
/** An FTS5 MATCH expression requiring every word: each a quoted phrase (never an operator), AND'ed. https://www.sqlite.org/fts5.html#fts5_strings */
export const allWordsMatch = (ws: string[]): string => ws.map(quote).join(' AND ');
/** The lower-case letter/digit runs of `text` (Unicode). */
export const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** FTS5 OR of phrases (parenthesised when more than one). */
export function orOf(phrases: string[]): string {
  return phrases.length === 1 ? phrases[0]! : `(${phrases.join(' OR ')})`;
}
/** An FTS5 expression limited to one column (`{col} : (…)`), or unchanged for all columns. */
export function scoped(expr: string, column: string | null): string {
  return column ? `{${column}} : (${expr})` : expr;
}

/** Operator synonyms of a query word: the other words of two-way rules holding it, the words of one-way rules from it. */
export function operatorSynonyms(rules: readonly SynonymRule[], word: string): string[] {
  const stem = stemmer(word.toLowerCase());
  const same = (w: string): boolean => {
    const ws = words(w);
    return ws.length === 1 && stemmer(ws[0]!) === stem;
  };
  const out: string[] = [];
  for (const r of rules) {
    if (r.kind === 'two_way' && r.words.some(same)) out.push(...r.words.filter((w) => !same(w)));
    if (r.kind === 'one_way' && r.input !== null && same(r.input)) out.push(...r.words);
  }
  return [...new Set(out.map((w) => w.toLowerCase()))];
}

/** The query with each corrected word replaced (case-insensitive, whole words), or null when nothing was corrected. */
export function correctedQuery(query: string, corrections: { from: string; to: string }[]): string | null {
  if (corrections.length === 0) return null;
  let out = query;
  for (const c of corrections)
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${c.from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'iu'), c.to);
  return out;
}

/** The word of `text` whose Porter stem is `stem`, as written (lower case), or null. */
export function surfaceWord(text: string, stem: string): string | null {
  for (const w of words(text)) if (stemmer(w) === stem) return w;
  return null;
}
