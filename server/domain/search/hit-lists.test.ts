import { describe, expect, it } from 'vitest';
import type { MatchKind } from '../../../shared/schemas/asset.ts';
import { appendMatchedBy, capPartialMatches, LexicalHits, packMatchedBy, Ranked, unpackMatchedBy } from './hit-lists.ts';
import { stableDescending } from './stable-order.ts';

/** A seeded PRNG in [0, 1) (an LCG: enough for test data). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

describe('hit lists', () => {
  it('packs matched_by lists with their order, and appends a kind only once', () => {
    const lists: MatchKind[][] = [
      [],
      ['text'],
      ['concept', 'text'],
      ['typo', 'concept', 'text', 'meaning'],
      ['visual'],
      ['text', 'typo', 'concept', 'meaning', 'visual'],
    ];
    for (const l of lists) expect(unpackMatchedBy(packMatchedBy(l))).toEqual(l);
    expect(packMatchedBy(['text', 'typo', 'concept', 'meaning', 'visual'])).toBeLessThan(2 ** 16);
    expect(unpackMatchedBy(appendMatchedBy(packMatchedBy(['concept', 'text']), 'meaning'))).toEqual(['concept', 'text', 'meaning']);
    expect(unpackMatchedBy(appendMatchedBy(packMatchedBy(['concept', 'text']), 'text'))).toEqual(['concept', 'text']);
    expect(unpackMatchedBy(appendMatchedBy(0, 'visual'))).toEqual(['visual']);
  });

  it('orders positions by key, highest first, ties in position order, as a stable comparator sort does', () => {
    const r = prng(3);
    for (const [n, distinct] of [
      [0, 1],
      [1, 1],
      [500, 4],
      [700, 1000],
      [300, 1],
    ] as const) {
      const keys = Float64Array.from({ length: n }, () => Math.floor(r() * distinct) / 7 - 0.5);
      if (n > 10) keys[3] = -0;
      const expected = Array.from({ length: n }, (_, j) => j).sort((a, b) => keys[b]! - keys[a]! || a - b);
      expect(Array.from(stableDescending(keys))).toEqual(expected);
      // keys already in order (with ties) come back in place
      const sorted = Float64Array.from(expected, (j) => keys[j]!);
      expect(Array.from(stableDescending(sorted))).toEqual(Array.from({ length: n }, (_, j) => j));
    }
  });

  it('keeps lexical hits and rankings as objects on demand', () => {
    const hits = LexicalHits.of([
      { seq: 9, relevance: 1, matchedBy: ['text'], complete: true },
      { seq: 4, relevance: 0.4, matchedBy: ['typo', 'concept'], complete: false },
    ]);
    expect(hits.toArray()[1]).toEqual({ seq: 4, relevance: 0.4, matchedBy: ['typo', 'concept'], complete: false });
    expect(hits.someComplete(0.5)).toBe(true);
    expect(() => LexicalHits.of([hits.at(0), hits.at(0)])).toThrow(/distinct/);
    const ranked = Ranked.of([
      { seq: 1, relevance: 0.3, matchedBy: [], match: false },
      { seq: 2, relevance: 0.9, matchedBy: ['text'], match: true },
      { seq: 3, relevance: 0.2, matchedBy: ['meaning'], match: false },
      { seq: 4, relevance: 0.6, matchedBy: ['meaning'], match: true },
    ]);
    expect(ranked.matches).toBe(2);
    expect(ranked.matchSeqs()).toEqual([2, 4]);
    expect(ranked.matchRange(1, 10).map((f) => f.seq)).toEqual([4]);
    expect(ranked.suggestions(0.25, 5).map((f) => f.seq)).toEqual([1]);
    expect(ranked.toArray().map((f) => [f.seq, f.match])).toEqual([
      [2, true],
      [4, true],
      [1, false],
      [3, false],
    ]);
  });
});

describe('capPartialMatches', () => {
  it('keeps partial matches below a match, in their order, only when some candidate matches every word', () => {
    const relevance = Float64Array.from([1, 0.8, 0.6, 0.5, 0.3]);
    capPartialMatches(relevance, Uint8Array.from([1, 0, 0, 0, 0]), 0.5);
    expect([...relevance].map((r) => Math.round(r * 10_000) / 10_000)).toEqual([1, 0.486, 0.482, 0.48, 0.3]);
    // no complete candidate reaches a match: the partial ones stay matches (the any-term fallback)
    const alone = Float64Array.from([0.8, 0.45]);
    capPartialMatches(alone, Uint8Array.from([0, 1]), 0.5);
    expect([...alone]).toEqual([0.8, 0.45]);
  });
});
