/**
 * Retrieval metrics of the evaluation harness (pure).
 *
 * - nDCG@k with graded gains 2^rel − 1 and log2(rank + 1) discounts (Järvelin & Kekäläinen, "Cumulated
 *   gain-based evaluation of IR techniques", TOIS 2002; the exponential gain of Burges et al. 2005); the
 *   ideal ranking is the judged relevant set sorted by grade.
 * - recall@k: share of the relevant items (grade ≥ 1) found in the top k.
 * - hit@k: 1 when any relevant item is in the top k.
 * - unrelated@k: results in the top k judged 0 (honesty: a confident list of unrelated results is a bug).
 * No-match queries (nothing judged relevant) are scored apart: a false positive is any result at all.
 * Errors in both directions, per query (the results are the matches a mode returned, at most a page of 10):
 * - false positives: results judged 0 (on any query), and no-match queries answered with anything;
 * - false negatives: match queries answered with nothing, and relevant items missing from the page
 *   (min(relevant, 10) − relevant returned, so a query with more relevant items than a page is not
 *   charged for the page size).
 * Halves (`halfOf`): the judged queries split by a hash of their text into a development half, on
 * which changes may be tuned, and a held-out half, reported beside it and never tuned on.
 */

/** Judged grades by item key; absent = 0. */
export type Judgements = Record<string, number>;

/** Discounted cumulative gain of a ranked list of grades. */
function dcg(grades: number[]): number {
  return grades.reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0);
}

/** nDCG@k of `ranked` (item keys, best first) against `rel`; 0 when nothing is relevant. */
export function ndcgAt(ranked: string[], rel: Judgements, k: number): number {
  const ideal = dcg(
    Object.values(rel)
      .filter((g) => g > 0)
      .sort((a, b) => b - a)
      .slice(0, k),
  );
  if (ideal === 0) return 0;
  return dcg(ranked.slice(0, k).map((key) => rel[key] ?? 0)) / ideal;
}

/** Share of relevant items (grade ≥ 1) in the top k; 0 when nothing is relevant. */
export function recallAt(ranked: string[], rel: Judgements, k: number): number {
  const relevant = Object.keys(rel).filter((key) => (rel[key] ?? 0) > 0);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((key) => top.has(key)).length / relevant.length;
}

/** 1 when a relevant item is in the top k, else 0. */
export function hitAt(ranked: string[], rel: Judgements, k: number): number {
  return ranked.slice(0, k).some((key) => (rel[key] ?? 0) > 0) ? 1 : 0;
}

/** Items in the top k judged 0. */
export function unrelatedAt(ranked: string[], rel: Judgements, k: number): number {
  return ranked.slice(0, k).filter((key) => (rel[key] ?? 0) === 0).length;
}

/** Relevant items (grade ≥ 1) a page of `k` could hold but `ranked` lacks: min(relevant, k) − relevant in the top k. */
export function missingAt(ranked: string[], rel: Judgements, k: number): number {
  const relevant = Object.keys(rel).filter((key) => (rel[key] ?? 0) > 0);
  const top = new Set(ranked.slice(0, k));
  return Math.min(relevant.length, k) - relevant.filter((key) => top.has(key)).length;
}

/** The two halves of a judged query set. */
export type Half = 'dev' | 'held-out';

/**
 * The half a query belongs to: FNV-1a (32 bit) of its lower-cased UTF-8 text, even = development.
 * Fixed by the text alone, so a query keeps its half whatever else the set holds.
 */
export function halfOf(q: string): Half {
  let h = 2166136261;
  for (const b of new TextEncoder().encode(q.toLowerCase())) h = Math.imul(h ^ b, 16777619);
  return (h >>> 0) % 2 === 0 ? 'dev' : 'held-out';
}

/** One judged query and what a mode returned for it. */
export interface QueryRun {
  q: string;
  type: string;
  rel: Judgements;
  /** item keys returned as matches, best first */
  ranked: string[];
  /** total reported by the service (matches across pages) */
  total: number;
}

/** Scores of one query. */
export interface QueryScore {
  q: string;
  type: string;
  noMatch: boolean;
  ndcg10: number;
  recall3: number;
  hit3: number;
  unrelated10: number;
  returned: number;
  /** results judged 0 (in the page of at most 10) */
  fp: number;
  /** relevant items missing from the page: min(relevant, 10) − relevant returned (0 on no-match queries) */
  fn: number;
}

/** Aggregate over a query set for one mode. */
export interface Summary {
  /** match queries (something relevant exists) */
  queries: number;
  ndcg10: number;
  recall3: number;
  hit3: number;
  /** mean unrelated results in the top 10 of match queries */
  unrelated10: number;
  noMatchQueries: number;
  /** no-match queries that returned at least one result */
  falsePositives: number;
  /** results judged 0, summed over every query (pages of at most 10) */
  fpResults: number;
  /** match queries answered with nothing */
  emptyAnswers: number;
  /** relevant items missing from the pages of match queries, summed */
  fnMissing: number;
  /** per query type: mean nDCG@10 (match types) or false positives (no_match) */
  byType: Record<string, { n: number; ndcg10: number; hit3: number }>;
}

/** Score every query of a run. */
export function scoreRun(runs: QueryRun[]): QueryScore[] {
  return runs.map((r) => {
    const noMatch = Object.values(r.rel).every((g) => g <= 0);
    return {
      q: r.q,
      type: r.type,
      noMatch,
      ndcg10: noMatch ? (r.ranked.length === 0 ? 1 : 0) : ndcgAt(r.ranked, r.rel, 10),
      recall3: recallAt(r.ranked, r.rel, 3),
      hit3: hitAt(r.ranked, r.rel, 3),
      unrelated10: unrelatedAt(r.ranked, r.rel, 10),
      returned: r.ranked.length,
      fp: unrelatedAt(r.ranked, r.rel, 10),
      fn: noMatch ? 0 : missingAt(r.ranked, r.rel, 10),
    };
  });
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Aggregate query scores (nDCG, recall and hit over match queries only; false positives over no-match queries). */
export function summarize(scores: QueryScore[]): Summary {
  const match = scores.filter((s) => !s.noMatch);
  const none = scores.filter((s) => s.noMatch);
  const byType: Summary['byType'] = {};
  for (const type of [...new Set(scores.map((s) => s.type))]) {
    const of = scores.filter((s) => s.type === type);
    byType[type] = { n: of.length, ndcg10: mean(of.map((s) => s.ndcg10)), hit3: mean(of.map((s) => s.hit3)) };
  }
  return {
    queries: match.length,
    ndcg10: mean(match.map((s) => s.ndcg10)),
    recall3: mean(match.map((s) => s.recall3)),
    hit3: mean(match.map((s) => s.hit3)),
    unrelated10: mean(match.map((s) => s.unrelated10)),
    noMatchQueries: none.length,
    falsePositives: none.filter((s) => s.returned > 0).length,
    fpResults: scores.reduce((a, s) => a + s.fp, 0),
    emptyAnswers: match.filter((s) => s.returned === 0).length,
    fnMissing: match.reduce((a, s) => a + s.fn, 0),
    byType,
  };
}
