import { describe, expect, it } from 'vitest';
import { PartitionBudget, PartitionMap } from './partition-budget.ts';

/** A partition stand-in of a settable size. */
const part = (bytes: number) => ({ index: { bytes } });

describe('PartitionBudget', () => {
  it('drops the least recently used partitions of every map beyond the bound, never the one in use', () => {
    const budget = new PartitionBudget(100);
    const assets = new PartitionMap<ReturnType<typeof part>>(budget);
    const products = new PartitionMap<ReturnType<typeof part>>(budget);
    assets.set('a', part(40));
    products.set('p', part(40));
    expect([budget.bytes, budget.partitions]).toEqual([80, 2]);
    // 'a' used after 'p': 'p' is the least recently used when 'b' comes
    expect(assets.use('a')).toBeDefined();
    assets.set('b', part(40));
    expect([...assets.keys()]).toEqual(['a', 'b']);
    expect(products.size).toBe(0);
    expect(products.use('p')).toBeUndefined();
    expect([budget.bytes, budget.partitions]).toEqual([80, 2]);
    // one larger than the whole budget stays, alone, while it is the one used
    products.set('huge', part(500));
    expect([assets.size, products.size, budget.bytes]).toEqual([0, 1, 500]);
  });

  it('re-reads a partition size at each use, and forgets partitions its maps delete or clear', () => {
    const budget = new PartitionBudget(100);
    const m = new PartitionMap<ReturnType<typeof part>>(budget);
    const grows = { index: { bytes: 10 } };
    m.set('g', grows);
    m.set('x', part(30));
    m.set('y', part(30));
    expect(budget.bytes).toBe(70);
    // 'g' grew (replayed writes) since it was last used: counted as it is now, and the others go first
    grows.index.bytes = 60;
    m.use('g');
    expect([...m.keys()]).toEqual(['g', 'y']);
    expect(budget.bytes).toBe(90);
    m.delete('y');
    expect([budget.bytes, budget.partitions]).toEqual([60, 1]);
    m.clear();
    expect([budget.bytes, budget.partitions]).toEqual([0, 0]);
    expect(() => new PartitionBudget(0)).toThrow(/positive/);
  });
});
