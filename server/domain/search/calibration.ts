/**
 * Calibrated acceptance of vector matches (pure).
 *
 * Method. A cosine similarity means nothing on its own: its scale differs per embedding model, per
 * corpus and per query length. So for each vector space and scope we estimate, when the scope is
 * indexed, the null distribution: similarities of pairs known to be unrelated.
 * - Text (semantic search): probe words against documents that do not contain them. Probes are words
 *   of the scope's own text (in-domain: "cactus" against a photo of a bird, which a topical query
 *   resembles) plus the most frequent English nouns of WordNet (SemCor counts; out-of-domain queries).
 * - Visual (`similar`): pairs of different images of the scope.
 * The null is summarised robustly in Fisher-z space (z = atanh(cos), which makes cosine samples
 * approximately normal; Fisher 1915): centre = median, spread = 1.4826 × MAD (Rousseeuw & Croux
 * 1993). A match's standard score is (atanh(cos) − centre) / spread — per-model score normalisation in
 * the manner of Z-norm (Auckenthaler, Carey & Lloyd-Thomas, "Score normalization for
 * text-independent speaker verification systems", DSP 2000).
 * A hit is accepted when its score is significant at family-wise level α = 0.05 over the N documents
 * a query is compared with (Bonferroni): z ≥ Φ⁻¹(1 − α / N). So in a library of 100 unrelated
 * documents, a query about none of them returns nothing 95% of the time; larger libraries need
 * stronger evidence. The family counts at least `MIN_FAMILY` documents: in a small library the null
 * rests on few documents, so the test stays as strict as for 20. (Benjamini–Hochberg was tried:
 * with a null that underestimates topical neighbours it let a strong hit license weak ones.)
 * Near-duplicates (`similar`): cosine ≥ 0.9 on the visual descriptor (domain/media/colour.ts). Measured on
 * the 21 decodable demo photos: copies resized to 300 or 800 px wide and re-encoded as JPEG q55/q80,
 * brightened 15% or converted to PNG score 0.85–1.0 (0.93+ for most), a 5%-per-side crop 0.84–0.93,
 * while different photos score at most 0.64 (median 0.37) — except the same print with text labels
 * added (0.97), which is a near-duplicate.
 */

/** Null distribution of a space in one scope (Fisher-z space). */
export interface NullModel {
  center: number;
  spread: number;
  /** corpus size the estimate was made on */
  items: number;
  /** null pairs it was fitted on */
  pairs: number;
}

/** Family-wise false-acceptance rate of one query against the whole scope. */
export const FAMILY_ALPHA = 0.05;
/** Cosine from which two visual descriptors are treated as the same picture. */
export const NEAR_DUPLICATE = 0.9;
/** Highest relevance a semantic-only hit gets: below every complete lexical match (≥ 0.75). */
export const SEMANTIC_MAX = 0.74;
/** Fewest null pairs a model needs; below it nothing is accepted by similarity alone. */
export const MIN_PAIRS = 30;
/** Re-estimate when the corpus has grown or shrunk by this share since the estimate. */
export const STALE_SHARE = 0.25;

/** Fisher z-transform of a cosine, clamped away from ±1. */
export function fisherZ(cos: number): number {
  return Math.atanh(Math.max(-0.9999, Math.min(0.9999, cos)));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Fit a null model to cosine similarities of unrelated pairs.
 * @returns null when there are fewer than `MIN_PAIRS` pairs
 */
export function fitNull(cosines: number[], items: number): NullModel | null {
  if (cosines.length < MIN_PAIRS) return null;
  const z = cosines.map(fisherZ);
  const center = median(z);
  const spread = Math.max(1e-3, 1.4826 * median(z.map((x) => Math.abs(x - center))));
  return { center, spread, items, pairs: cosines.length };
}

/** Whether a stored estimate no longer describes a corpus of `items` documents. */
export function isStale(m: NullModel, items: number): boolean {
  return Math.abs(items - m.items) > Math.max(2, STALE_SHARE * m.items);
}

/** Standard score of a cosine under the null. */
export function standardScore(m: NullModel, cos: number): number {
  return (fisherZ(cos) - m.center) / m.spread;
}

/**
 * Inverse of the standard normal CDF (Acklam's rational approximation, relative error < 1.15e-9;
 * https://web.archive.org/web/20151030215612/http://home.online.no/~pjacklam/notes/invnorm/).
 * @param p probability in (0, 1)
 */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** Smallest family a hit is tested in (see the module note). */
export const MIN_FAMILY = 20;

/** The standard score a hit needs among `n` compared documents (Bonferroni at `FAMILY_ALPHA`, at least `MIN_FAMILY`). */
export function acceptanceScore(n: number, alpha = FAMILY_ALPHA): number {
  return normalQuantile(1 - alpha / Math.max(MIN_FAMILY, n));
}

/**
 * Relevance in [0, 1] of a semantic hit: 0.5 at the acceptance score, rising 0.08 per standard
 * deviation above it up to `SEMANTIC_MAX`; below it (a suggestion, not a match) falling 0.1 per
 * standard deviation towards 0.
 */
export function semanticRelevance(z: number, accept: number): number {
  return z >= accept ? Math.min(SEMANTIC_MAX, 0.5 + 0.08 * (z - accept)) : Math.max(0, 0.5 - 0.1 * (accept - z));
}

/**
 * Relevance of a visual hit: near-duplicates 0.95–1.0 (by cosine alone, so also in a library too small
 * to calibrate, `z` null); visually related (significant) 0.5–0.9; unrelated below 0.5 (suggestions
 * only); 0 when uncalibrated and not a near-duplicate.
 */
export function visualRelevance(cos: number, z: number | null, accept: number): number {
  if (cos >= NEAR_DUPLICATE) return Math.min(1, 0.95 + (0.05 * (cos - NEAR_DUPLICATE)) / (1 - NEAR_DUPLICATE));
  if (z === null) return 0;
  return z >= accept ? Math.min(0.9, 0.5 + 0.1 * (z - accept)) : Math.max(0, 0.5 - 0.1 * (accept - z));
}

/**
 * Cosines of unrelated (probe word, document) pairs: every probe against every document whose
 * stems do not include the probe's stem.
 * @param docs L2-normalised document vectors with their stems
 * @param probes L2-normalised probe vectors (zero vectors are skipped)
 */
export function textNullCosines(
  docs: { stems: Set<string>; vector: Float32Array }[],
  probes: { stem: string; vector: Float32Array }[],
): number[] {
  const out: number[] = [];
  for (const p of probes) {
    if (!p.vector.some((x) => x !== 0)) continue;
    for (const d of docs) if (!d.stems.has(p.stem)) out.push(dot(p.vector, d.vector));
  }
  return out;
}

/** Cosines of all pairs of different vectors (L2-normalised). */
export function pairwiseCosines(vectors: Float32Array[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < vectors.length; i++) for (let j = i + 1; j < vectors.length; j++) out.push(dot(vectors[i]!, vectors[j]!));
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * In-domain probe words of a corpus: distinct words of at least 4 letters (no digits), spread over the
 * corpus by a fixed hash so the choice is deterministic, at most `max`.
 */
export function probeWords(texts: string[], max: number, stop: Set<string>): string[] {
  const ws = new Set<string>();
  for (const t of texts) for (const w of t.toLowerCase().match(/\p{L}{4,}/gu) ?? []) if (!stop.has(w)) ws.add(w);
  const hash = (s: string): number => {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return h >>> 0;
  };
  return [...ws].sort((a, b) => hash(a) - hash(b) || (a < b ? -1 : 1)).slice(0, max);
}

/** Documents sampled for an estimate, and probes of each kind. */
export const SAMPLE_DOCS = 300;
export const IN_DOMAIN_PROBES = 150;
export const BACKGROUND_PROBES = 150;

/**
 * Estimate the text null model of a corpus (see the module note): embed in-domain probe words and
 * background nouns, and fit the cosines of every probe against every sampled document that lacks it.
 * @param docs sampled documents: their searchable text and stored vector
 * @param items corpus size (recorded with the estimate)
 * @param embed the space's embedder
 * @param background frequent English nouns (WordNet), may be empty
 * @param stem the index's stemmer, so "flowers" counts as contained in a text with "flower"
 * @returns null when there are too few null pairs
 * @throws what `embed` throws
 */
export async function estimateTextNull(o: {
  docs: { text: string; vector: Float32Array }[];
  items: number;
  embed: (texts: string[]) => Promise<Float32Array[]>;
  background: string[];
  stop: Set<string>;
  stem: (word: string) => string;
}): Promise<NullModel | null> {
  const docs = o.docs.map((d) => ({ vector: d.vector, stems: new Set((d.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(o.stem)) }));
  const words = [
    ...new Set([
      ...probeWords(
        o.docs.map((d) => d.text),
        IN_DOMAIN_PROBES,
        o.stop,
      ),
      ...o.background.slice(0, BACKGROUND_PROBES),
    ]),
  ];
  if (words.length === 0 || docs.length === 0) return null;
  const vectors = await o.embed(words);
  const probes = words.map((w, i) => ({ stem: o.stem(w), vector: vectors[i]! })).filter((p) => p.vector !== undefined);
  return fitNull(textNullCosines(docs, probes), o.items);
}

/** Estimate the visual null model of a corpus from all pairs of sampled images. */
export function estimateVisualNull(vectors: Float32Array[], items: number): NullModel | null {
  return fitNull(pairwiseCosines(vectors), items);
}
