import { defaultWordVectorCacheDir, ensureWordVectors, loadWordVectors } from '../server/providers/embedder-static.ts';

/** A seeded PRNG of uniform floats in [0, 1): a 32-bit multiply-xorshift step. The same seed gives the same library in every bench. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}

/** Deterministic PRNG of uniform floats in [0, 1): mulberry32 (Tommy Ettinger, public domain). */
export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A seeded picker over 3,000 real English words: the static embedder's vocabulary at frequency ranks
 * 800–20,000, lower-case letters only, 4 letters or more (loads the word vectors, building their cache
 * on first use). The asset texts and queries of the search benches.
 */
export async function wordPicker(seed = 42): Promise<() => string> {
  const wv = loadWordVectors(await ensureWordVectors(defaultWordVectorCacheDir()));
  const words: string[] = [];
  for (const [w, r] of wv.index) if (r >= 800 && r < 20_000 && /^[a-z]{4,}$/.test(w)) words.push(w);
  const vocab = words.slice(0, 3000);
  const rand = rng(seed);
  return () => vocab[Math.floor(rand() * vocab.length)]!;
}
