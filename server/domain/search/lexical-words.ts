/**
 * Query words for the lexical planner (domain/search/lexical.ts): splitting, operator synonym rules, spelling
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

/** The lower-case letter/digit runs of `text` (Unicode). */
export const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

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
