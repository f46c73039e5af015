import { describe, expect, it } from 'vitest';
import { mergeCandidates, SeqPositions } from './lexical-candidates.ts';

describe('SeqPositions', () => {
  it('gives each seq added the next position, once, and −1 to seqs never added (colliding slots included)', () => {
    let s = 9;
    const rnd = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
    // seqs spaced by the table size collide on the low bits; large and small seqs mixed
    const seqs = [
      ...Array.from({ length: 300 }, (_, i) => 1 + i * 1024),
      ...Array.from({ length: 700 }, () => 1 + Math.floor(rnd() * 2e9)),
    ];
    const p = new SeqPositions(seqs.length);
    const expected = new Map<number, number>();
    for (const q of [...seqs, ...seqs.slice(0, 50)]) {
      const added = p.add(q);
      expect(added).toBe(!expected.has(q));
      if (added) expected.set(q, expected.size);
    }
    expect(p.size).toBe(expected.size);
    for (const [q, j] of expected) expect(p.get(q)).toBe(j);
    for (const q of [0, 2, 1025 + 1, 2 ** 31 + 5]) if (!expected.has(q)) expect(p.get(q)).toBe(-1);
  });

  it('merges lists in order, each seq once, the first list being the exact matches', () => {
    const c = mergeCandidates(
      [
        [5, 3],
        [3, 9, 5, 1],
        [7, 9],
      ],
      [9, 7, 42],
    );
    expect([...c.seqs]).toEqual([5, 3, 9, 1, 7]);
    expect(c.exactN).toBe(2);
    expect([...c.inAllTerms]).toEqual([0, 0, 1, 0, 1]);
    expect(c.at.get(1)).toBe(3);
    expect(c.at.get(42)).toBe(-1);
  });
});
