/**
 * Typo tolerance: how many typos a query word may carry, and the edit distance that counts them.
 *
 * Budgets follow Meilisearch's defaults (https://www.meilisearch.com/docs/learn/relevancy/typo_tolerance_settings):
 * no typo for words under 5 letters, one up to 8 letters, two from 9. The distance is the optimal
 * string alignment form of Damerau–Levenshtein (insertions, deletions, substitutions and transpositions
 * of adjacent letters, each substring edited once; Damerau 1964, Lowrance & Wagner 1975), computed in
 * a band of width 2·max+1 with an early exit once every cell of a row exceeds `max`, so scanning a
 * vocabulary costs O(len · max) per word. (The npm `damerau-levenshtein` package allocates a full
 * matrix of arrays per call, has no cut-off and returns a wrong count past four edits, so it does
 * not fit a vocabulary scan.)
 */

/** Typos allowed in a query word of `letters` letters (Meilisearch defaults: 0 under 5, 1 up to 8, 2 beyond). */
export function typoBudget(letters: number): number {
  return letters < 5 ? 0 : letters <= 8 ? 1 : 2;
}

/**
 * Optimal-string-alignment distance between `a` and `b`, or `max + 1` when it exceeds `max`.
 * @param max largest distance of interest (≥ 0)
 */
export function boundedOsa(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0 || m === 0) return Math.max(n, m) <= max ? Math.max(n, m) : max + 1;
  const big = max + 1;
  // three rolling rows: i-2, i-1, i
  let prev2 = new Array<number>(m + 1).fill(big);
  let prev = Array.from({ length: m + 1 }, (_, j) => (j <= max ? j : big));
  let cur = new Array<number>(m + 1).fill(big);
  for (let i = 1; i <= n; i++) {
    cur.fill(big);
    cur[0] = i <= max ? i : big;
    const lo = Math.max(1, i - max);
    const hi = Math.min(m, i + max);
    let rowMin = cur[0];
    for (let j = lo; j <= hi; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1))
        d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = Math.min(d, big);
      if (cur[j]! < rowMin) rowMin = cur[j]!;
    }
    if (rowMin > max) return big;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return Math.min(prev[m]!, big);
}

/** A vocabulary term within the typo budget of a query word. */
export interface TypoCandidate {
  term: string;
  distance: number;
  /** documents holding the term (for ranking equally distant candidates) */
  docs: number;
}

/**
 * Vocabulary terms within `max` edits of `word`, nearest first, then most frequent, then alphabetical.
 * Terms equal to `word` are skipped (they are not corrections).
 */
export function typoCandidates(word: string, vocabulary: Iterable<{ term: string; docs: number }>, max: number): TypoCandidate[] {
  if (max <= 0) return [];
  const out: TypoCandidate[] = [];
  for (const v of vocabulary) {
    if (v.term === word || Math.abs(v.term.length - word.length) > max) continue;
    const d = boundedOsa(word, v.term, max);
    if (d <= max) out.push({ term: v.term, distance: d, docs: v.docs });
  }
  return out.sort((x, y) => x.distance - y.distance || y.docs - x.docs || (x.term < y.term ? -1 : 1));
}

/**
 * The vocabulary ranges (FTS5 term prefixes) that can hold a correction of `stem`: terms starting with
 * its first letter, and with its second (a dropped or swapped first letter). A substituted first letter
 * is not corrected: that keeps the scan to two ranges of the index and matches how rarely people
 * mistype the first letter.
 */
export function typoPrefixes(stem: string): string[] {
  const first = stem.charAt(0);
  const second = stem.charAt(1);
  return [...new Set([first, second].filter((c) => c.length > 0))];
}
