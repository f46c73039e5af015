import { describe, expect, it } from 'vitest';
import { halfOf, hitAt, missingAt, ndcgAt, recallAt, scoreRun, summarize, unrelatedAt } from './metrics.ts';

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
  it('counts errors in both directions per query', () => {
    expect(missingAt(['x', 'a'], rel, 10)).toBe(1); // b missing
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`r${i}`, 1]));
    expect(missingAt(['r0'], many, 10)).toBe(9); // a page of 10 can hold 10 of the 12
    const s = summarize(
      scoreRun([
        { q: 'm', type: 'plain', rel, ranked: ['x', 'a'], total: 2 },
        { q: 'e', type: 'plain', rel, ranked: [], total: 0 },
        { q: 'n', type: 'no_match', rel: {}, ranked: ['y', 'z'], total: 2 },
      ]),
    );
    expect(s).toMatchObject({ fpResults: 3, emptyAnswers: 1, fnMissing: 3, falsePositives: 1 });
  });
  it('splits queries into halves by their text alone', () => {
    expect(halfOf('Falcon')).toBe(halfOf('falcon'));
    const halves = ['falcon', 'cactus', 'snow', 'beer', 'chart', 'meadow', 'tree', 'pub'].map(halfOf);
    expect(new Set(halves)).toEqual(new Set(['dev', 'held-out']));
  });
});
