import { describe, expect, it } from 'vitest';
import { hitAt, ndcgAt, recallAt, scoreRun, summarize, unrelatedAt } from './metrics.ts';

describe('eval metrics', () => {
  const rel = { a: 2, b: 1, c: 0 };
  it('nDCG@k is 1 for the ideal order and lower when a relevant item drops', () => {
    expect(ndcgAt(['a', 'b'], rel, 10)).toBeCloseTo(1, 10);
    // ideal DCG = 3/log2(2) + 1/log2(3); got b first, then a
    const ideal = 3 + 1 / Math.log2(3);
    expect(ndcgAt(['b', 'a'], rel, 10)).toBeCloseTo((1 + 3 / Math.log2(3)) / ideal, 10);
    expect(ndcgAt(['x', 'y', 'a'], rel, 2)).toBe(0);
  });
  it('recall, hit and unrelated count within the cut', () => {
    expect(recallAt(['x', 'a', 'y', 'b'], rel, 3)).toBe(0.5);
    expect(hitAt(['x', 'y', 'z', 'a'], rel, 3)).toBe(0);
    expect(unrelatedAt(['x', 'a', 'c'], rel, 10)).toBe(2);
  });
  it('scores no-match queries apart: any result is a false positive', () => {
    const s = summarize(
      scoreRun([
        { q: 'm', type: 'plain', rel, ranked: ['a', 'b'], total: 2 },
        { q: 'n1', type: 'no_match', rel: {}, ranked: [], total: 0 },
        { q: 'n2', type: 'no_match', rel: {}, ranked: ['a'], total: 1 },
      ]),
    );
    expect(s.queries).toBe(1);
    expect(s.ndcg10).toBeCloseTo(1, 10);
    expect(s.noMatchQueries).toBe(2);
    expect(s.falsePositives).toBe(1);
    expect(s.byType.no_match).toEqual({ n: 2, ndcg10: 0.5, hit3: 0 });
  });
});
