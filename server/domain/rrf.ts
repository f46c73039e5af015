/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): score(d) = Σ_lists 1 / (k + rank_d),
 * ranks starting at 1, k = 60 by default. Ties keep the order of first appearance.
 * @param lists ranked id lists, best first
 * @returns fused ids with scores, best first
 */
export function reciprocalRankFusion<T>(lists: T[][], k = 60): { id: T; score: number }[] {
  const scores = new Map<T, number>();
  for (const list of lists) {
    list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
}
