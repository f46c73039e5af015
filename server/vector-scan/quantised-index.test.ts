import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OVERSAMPLE, QuantisedIndex } from './quantised-index.ts';

/** Deterministic PRNG (mulberry32-style) so the fixed set is the same on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
}

describe('QuantisedIndex (int8 WebAssembly scan + exact re-rank)', () => {
  const D = 100;
  const N = 20_000;
  const rand = rng(1234);
  // clustered data (40 topics, like text embeddings), so near neighbours are close calls
  const centres = Array.from({ length: 40 }, () => Float32Array.from({ length: D }, () => rand() - 0.5));
  const vecs = Array.from({ length: N }, (_, i) => Float32Array.from(centres[i % 40]!, (c) => c + (rand() - 0.5) * 0.6));
  const index = new QuantisedIndex(D, 1);
  vecs.forEach((v, i) => index.upsert(i + 1, v, [i % 3]));
  const exact = (q: Float32Array, k: number, keep: (key: number) => boolean = () => true): number[] =>
    vecs
      .map((v, i) => {
        let dot = 0,
          vv = 0,
          qq = 0;
        for (let d = 0; d < D; d++) {
          dot += v[d]! * q[d]!;
          vv += v[d]! * v[d]!;
          qq += q[d]! * q[d]!;
        }
        return { key: i + 1, s: dot / Math.sqrt(vv * qq) };
      })
      .filter((h) => keep(h.key))
      .sort((a, b) => b.s - a.s || a.key - b.key)
      .slice(0, k)
      .map((h) => h.key);
  const queries = Array.from({ length: 12 }, (_, j) => Float32Array.from(centres[(j * 7) % 40]!, (c) => c + (rand() - 0.5) * 0.8));

  it('returns exactly the exact top-10 and top-100 on a fixed set of 20,000 × 100-d vectors', () => {
    expect(N).toBeGreaterThan(OVERSAMPLE * 100); // the int8 scan chooses the candidates
    for (const q of queries) {
      expect(index.search(q, 10).map((h) => h.key)).toEqual(exact(q, 10));
      expect(index.search(q, 100).map((h) => h.key)).toEqual(exact(q, 100));
    }
  });

  it('applies attribute, key-bound, excluded-key and key-set filters during the scan', () => {
    const q = queries[0]!;
    expect(index.search(q, 20, { attrs: [{ col: 0, values: [2] }] }).map((h) => h.key)).toEqual(exact(q, 20, (k) => (k - 1) % 3 === 2));
    expect(index.search(q, 20, { maxKey: 5000, excludeKey: exact(q, 1, (k) => k <= 5000)[0] }).map((h) => h.key)).toEqual(
      exact(q, 21, (k) => k <= 5000).slice(1),
    );
    const keys = new Set([3, 33, 333, 3333]);
    expect(index.search(q, 10, { keys }).map((h) => h.key)).toEqual(exact(q, 10, (k) => keys.has(k)));
    expect(index.search(q, 10, { attrs: [{ col: 0, values: [-1] }] })).toEqual([]);
  });

  it('reports similarity as sqlite-vec does (1 − cosine distance), honours the floor, and follows replace and remove', () => {
    const q = queries[1]!;
    const top = index.search(q, 5);
    expect(top[0]!.similarity).toBeGreaterThan(top[4]!.similarity);
    expect(index.search(q, 100, {}, top[2]!.similarity).map((h) => h.key)).toEqual(top.slice(0, 3).map((h) => h.key));
    const copy = new QuantisedIndex(D, 1);
    vecs.slice(0, 3000).forEach((v, i) => copy.upsert(i + 1, v, [0]));
    const first = copy.search(q, 1)[0]!.key;
    copy.remove(first);
    expect(copy.search(q, 1)[0]!.key).not.toBe(first);
    copy.upsert(2999, q, [0]);
    expect(copy.search(q, 1)[0]).toMatchObject({ key: 2999 });
    expect(copy.search(q, 1)[0]!.similarity).toBeCloseTo(1, 6);
    copy.upsert(7, new Float32Array(D), [0]); // zero vectors are never neighbours
    expect(copy.search(q, 3000).map((h) => h.key)).not.toContain(7);
    expect(copy.search(new Float32Array(D), 5)).toEqual([]);
    expect(copy.size).toBe(2999);
  });

  it('ships the kernel that kernel.wat compiles to', () => {
    // scripts/build-kernel.mjs --check exits non-zero when kernel-wasm.ts is stale
    execFileSync(process.execPath, [path.join(import.meta.dirname, '..', '..', 'scripts', 'build-kernel.mjs'), '--check']);
  });
});
