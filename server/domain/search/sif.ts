/**
 * Pure parts of the static sentence encoder: tokenisation, smooth-inverse-frequency (SIF) weights and
 * the weighted mean with common-component removal.
 *
 * Algorithm: Arora, Liang, Ma, "A Simple but Tough-to-Beat Baseline for Sentence Embeddings", ICLR 2017
 * (https://openreview.net/forum?id=SyK00v5xx). Word probabilities p(w) are not shipped with the GloVe
 * vectors, but the vocabulary is ordered by corpus frequency, so p(w) is estimated from the rank with
 * Zipf's law, p(r) ≈ 1 / ((r + 1) · H_N) (as model2vec and fse do for rank-ordered vocabularies).
 */

/** SIF smoothing constant `a` (the paper's recommended range is 1e-4 … 1e-3). */
export const SIF_A = 1e-3;

/**
 * Lower-cased word tokens of a text: letters and digits, diacritics folded, camelCase and
 * snake/kebab-case split (file names such as `RedFox_2.jpg` → `red fox 2 jpg`).
 */
export function tokenize(text: string): string[] {
  const spaced = text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  return spaced.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** SIF weight a / (a + p(w)) for the word at frequency rank `rank` (0 = most frequent) of `vocabSize`. */
export function sifWeight(rank: number, vocabSize: number): number {
  const harmonic = Math.log(vocabSize) + 0.5772156649;
  const p = 1 / ((rank + 1) * harmonic);
  return SIF_A / (SIF_A + p);
}

/**
 * Weighted mean of word vectors minus the projection on the common component `u`, L2-normalised.
 * @param rows the word vectors (each `dims` long) and their weights
 * @param u unit common-discourse vector (length `dims`) or null to skip removal
 * @returns a unit vector, or an all-zero vector when `rows` is empty
 */
export function sifCombine(rows: { vec: Float32Array; weight: number }[], dims: number, u: Float32Array | null): Float32Array {
  const out = new Float32Array(dims);
  if (rows.length === 0) return out;
  for (const { vec, weight } of rows) for (let i = 0; i < dims; i++) out[i]! += weight * vec[i]!;
  for (let i = 0; i < dims; i++) out[i]! /= rows.length;
  if (u) {
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += out[i]! * u[i]!;
    for (let i = 0; i < dims; i++) out[i]! -= dot * u[i]!;
  }
  return normalize(out);
}

/** L2-normalise in place; a zero vector stays zero. */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/** Cosine similarity of two vectors of equal length (0 when either is zero). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
