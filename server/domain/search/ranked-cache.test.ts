import { describe, expect, it } from 'vitest';
import { RankedCache } from './ranked-cache.ts';

describe('RankedCache (one ranked pass per result set)', () => {
  it('reuses a pass for the same query, snapshot and change-log head, and ranks again when any of them moves', async () => {
    const cache = new RankedCache<number>();
    let runs = 0;
    const rank = async () => ++runs;
    const q = { q: 'fox', m: 'all', k: null };
    cache.put(q, 10, 5, 100);
    expect(await cache.get({ k: null, m: 'all', q: 'fox' }, 10, 5, rank)).toBe(100); // key order does not matter
    expect(runs).toBe(0);
    expect(await cache.get(q, 10, 6, rank)).toBe(1); // a write happened (head moved)
    expect(await cache.get(q, 11, 6, rank)).toBe(2); // another snapshot
    expect(await cache.get({ ...q, q: 'cat' }, 11, 6, rank)).toBe(3);
    expect(await cache.get(q, 10, 6, rank)).toBe(1);
    expect(runs).toBe(3);
  });

  it('keeps at most 64 passes, evicting the least recently used', async () => {
    const cache = new RankedCache<number>();
    for (let i = 0; i < 64; i++) cache.put({ i }, 1, 1, i);
    await cache.get({ i: 0 }, 1, 1, async () => -1); // touch the oldest
    cache.put({ i: 64 }, 1, 1, 64);
    expect(await cache.get({ i: 0 }, 1, 1, async () => -1)).toBe(0);
    expect(await cache.get({ i: 1 }, 1, 1, async () => -1)).toBe(-1); // evicted
  });
});
