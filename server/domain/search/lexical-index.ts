/** The port the lexical planner (domain/search/lexical.ts) asks its questions through; FTS5 and tsvector adapters in db/. */
import type { LexicalExpr } from './lexical-query.ts';

/**
 * The lexical index of one scope (workspace or store), as a plan needs it. `count`, `size` and the
 * vocabulary ignore the request's filters (so match decisions, totals and facet counts agree);
 * `search` and `within` apply them.
 */
export interface LexicalIndex {
  /** documents of the scope matching an expression */
  count(match: LexicalExpr): Promise<number>;
  /** documents of the scope */
  size(): Promise<number>;
  /**
   * filtered documents matching, best BM25 first, at most `k`, and how many match in all (`estimated`
   * when the index stopped counting: very frequent words). With `counted: false` the caller needs the
   * ranked list only: `total` may then be `seqs.length`, the index may skip counting past it and
   * rank only the newest `k` matches.
   */
  search(match: LexicalExpr, k: number, counted?: boolean): Promise<{ seqs: number[]; total: number; estimated?: boolean }>;
  /** which of `seqs` match */
  within(match: LexicalExpr, seqs: number[]): Promise<Set<number>>;
  /**
   * documents of the scope matching any of `matches` (each an expression `count` was asked of): a query
   * word's count across its groups. `union` is one expression matching the same documents, for an index
   * that has to ask (one that kept the groups' documents takes their union instead).
   */
  countAny(matches: LexicalExpr[], union: LexicalExpr): Promise<number>;
  /** index terms (Porter stems) starting with `prefix`, with their document counts across the index */
  vocabulary(prefix: string): Promise<{ term: string; docs: number }[]>;
  /** which of these stems the index holds */
  known(stems: string[]): Promise<Set<string>>;
  /** the text of a few scope documents matching `match` (to find a word as written from its stem) */
  sampleText(match: LexicalExpr): Promise<string | null>;
}
