/**
 * The null model of coverage's word matches (domain/search/coverage.ts, pure): how close a query word comes,
 * by chance, to the nearest word of a document that is not about it.
 *
 * The statistic is the best cosine of a term's vector among a document's n words, and the best of n grows
 * with n: fitted over documents of every length at once, one null held a file name of two words to a bar
 * that a caption of thirty words passed for almost any word. So the null's centre is a function of n: the
 * Fisher z of each null pair is regressed on ln n (least squares over every pair, slope at least 0), and the
 * median and MAD of the residuals give the centre at one word and the spread (calibration.ts's robust fit,
 * on the residuals). The expected maximum of n draws grows about as the log of n over the lengths of
 * names, tags and captions (Gumbel, "Statistics of Extremes", 1958); a line in ln n fitted on the scope's
 * own documents needs no assumption on the cosines' distribution, and no band of lengths to run short of
 * documents in a small library. The line only ever raises the bar (`wordScore`): alone, it lowered a short
 * name's, and `npm run eval` counted more unrelated results on the file-names sets.
 */
import { stemmer } from 'stemmer';
import { BACKGROUND_PROBES, fisherZ, fitNull, IN_DOMAIN_PROBES, probeWords, standardScore, type NullModel } from './calibration.ts';

/** The word count of the second stored fit: the line in ln n is kept as its value at 1 word and at this many. */
export const REFERENCE_WORDS = 16;

/**
 * The word null of a scope: the null of the best-word cosine for a document of 1 word and of
 * `REFERENCE_WORDS` words (the same spread); between and beyond them its centre runs linearly in ln n.
 */
export interface WordNulls {
  one: NullModel;
  many: NullModel;
  /** the fit over every length at once */
  all: NullModel;
}

/** The null of the best-word cosine among `n` words (at least 1), from the line in ln n. */
export function nullFor(nulls: WordNulls, n: number): NullModel {
  const x = Math.log(Math.max(1, n)) / Math.log(REFERENCE_WORDS);
  return { ...nulls.one, center: nulls.one.center + (nulls.many.center - nulls.one.center) * x };
}

/**
 * Standard score of a best-word cosine among `n` words: the lower of its score under the null for `n` words
 * and under the pooled null. The line makes a long text's chance matches as rare as a short one's; it is
 * not let to make a short text's easier than the pooled null did, where one associated word ("wildlife"
 * for "denali") decides on its own.
 */
export function wordScore(nulls: WordNulls, n: number, cosine: number): number {
  return Math.min(standardScore(nullFor(nulls, n), cosine), standardScore(nulls.all, cosine));
}

/** Cosine of `v` and its nearest vector among `vs` (all L2-normalised); −1 when `vs` is empty. */
export function bestCosine(v: Float32Array, vs: readonly Float32Array[]): number {
  let best = -1;
  for (const u of vs) {
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[i]! * u[i]!;
    best = Math.max(best, s);
  }
  return best;
}

/**
 * Best-word cosines of unrelated (probe, document) pairs: for every probe and every document whose stems
 * lack the probe's stem, the cosine of the probe and the document's nearest word.
 */
export function wordNullCosines(
  docs: readonly { stems: ReadonlySet<string>; vectors: readonly Float32Array[] }[],
  probes: readonly { stem: string; vector: Float32Array }[],
): { cosine: number; words: number }[] {
  const out: { cosine: number; words: number }[] = [];
  for (const p of probes) {
    if (!p.vector.some((x) => x !== 0)) continue;
    for (const d of docs)
      if (d.vectors.length > 0 && !d.stems.has(p.stem)) out.push({ cosine: bestCosine(p.vector, d.vectors), words: d.vectors.length });
  }
  return out;
}

/**
 * Fit the null of the best-word cosine as a function of the word count (see the module note).
 * @param pairs null pairs: the best cosine and the document's word count (≥ 1)
 * @param items corpus size (recorded with each fit)
 * @returns the line's ends and the pooled fit; null when there are too few pairs (calibration.ts MIN_PAIRS)
 */
export function fitWordNull(pairs: readonly { cosine: number; words: number }[], items: number): WordNulls | null {
  const x = pairs.map((p) => Math.log(p.words));
  const z = pairs.map((p) => fisherZ(p.cosine));
  const mx = x.reduce((a, b) => a + b, 0) / Math.max(1, x.length);
  const mz = z.reduce((a, b) => a + b, 0) / Math.max(1, z.length);
  let sxz = 0;
  let sxx = 0;
  for (let i = 0; i < x.length; i++) {
    sxz += (x[i]! - mx) * (z[i]! - mz);
    sxx += (x[i]! - mx) ** 2;
  }
  // one length only, or a falling line (the best of more words cannot be expected lower): a flat null
  const slope = sxx > 1e-9 ? Math.max(0, sxz / sxx) : 0;
  // the residuals, as cosines, through calibration.ts's fit: their median is the centre at one word
  const one = fitNull(
    z.map((zi, i) => Math.tanh(zi - slope * x[i]!)),
    items,
  );
  const all = fitNull(
    pairs.map((p) => p.cosine),
    items,
  );
  return one && all ? { one, many: { ...one, center: one.center + slope * Math.log(REFERENCE_WORDS) }, all } : null;
}

/**
 * Estimate the word null of a scope (see the module note): probes are in-domain words of the sampled
 * documents and frequent English nouns (as `estimateTextNull`), colour names left out.
 * @param docs sampled documents: their descriptive words (`assetFacts`)
 * @param items corpus size (recorded with the fit)
 * @param vectorsOf L2-normalised word vectors by word (unknown words absent or zero)
 * @returns null when there are too few null pairs (calibration.ts MIN_PAIRS)
 * @throws what `vectorsOf` throws
 */
export async function estimateWordNull(o: {
  docs: readonly { words: readonly string[] }[];
  items: number;
  vectorsOf: (words: string[]) => Promise<ReadonlyMap<string, Float32Array>>;
  background: readonly string[];
  stop: ReadonlySet<string>;
  exclude: ReadonlySet<string>;
}): Promise<WordNulls | null> {
  const probes = [
    ...new Set([
      ...probeWords(
        o.docs.map((d) => d.words.join(' ')),
        IN_DOMAIN_PROBES,
        new Set([...o.stop, ...o.exclude]),
      ),
      ...o.background.filter((w) => !o.exclude.has(w)).slice(0, BACKGROUND_PROBES),
    ]),
  ];
  const vocabulary = [...new Set([...probes, ...o.docs.flatMap((d) => d.words)])];
  if (probes.length === 0 || o.docs.length === 0) return null;
  const vectors = await o.vectorsOf(vocabulary);
  const known = (ws: readonly string[]) => ws.flatMap((w) => (vectors.get(w)?.some((x) => x !== 0) ? [vectors.get(w)!] : []));
  const docs = o.docs.map((d) => ({ stems: new Set(d.words.map((w) => stemmer(w))), vectors: known(d.words) }));
  const ps = probes.flatMap((w) => (vectors.get(w) ? [{ stem: stemmer(w), vector: vectors.get(w)! }] : []));
  return fitWordNull(wordNullCosines(docs, ps), o.items);
}
