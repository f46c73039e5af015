import { describe, expect, it } from 'vitest';
import { fisherZ, fitNull, standardScore } from './calibration.ts';
import { fitWordNull, nullFor, REFERENCE_WORDS, wordNullCosines, wordScore } from './word-null.ts';

/** A unit vector at `deg` degrees in the plane of axes 0 and 1 (the cosine of two is the cosine of their angle). */
const at = (deg: number): Float32Array => Float32Array.from([Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180), 0]);

/** Null pairs whose Fisher z is `a + b·ln n` plus a fixed spread of residuals, for documents of 1 to 40 words. */
function pairs(a: number, b: number): { cosine: number; words: number }[] {
  const out: { cosine: number; words: number }[] = [];
  for (const words of [1, 2, 4, 8, 16, 40])
    for (let i = 0; i < 40; i++) out.push({ cosine: Math.tanh(a + b * Math.log(words) + ((i % 8) - 3.5) * 0.02), words });
  return out;
}

describe('the word null as a function of document length', () => {
  it("pairs each probe with the nearest word of every document that lacks it, with the document's word count", () => {
    const docs = [
      { stems: new Set(['ski']), vectors: [at(0)] },
      { stems: new Set(['dune']), vectors: [at(80), at(60)] },
    ];
    expect(wordNullCosines(docs, [{ stem: 'ski', vector: at(0) }])).toEqual([
      { cosine: expect.closeTo(Math.cos(Math.PI / 3), 6), words: 2 },
    ]);
  });

  it('recovers the centre at one word and its growth with ln n', () => {
    const m = fitWordNull(pairs(0.1, 0.05), 100)!;
    expect(m.one.center).toBeCloseTo(0.1, 3);
    expect(m.many.center).toBeCloseTo(0.1 + 0.05 * Math.log(REFERENCE_WORDS), 3);
    expect(nullFor(m, 8).center).toBeCloseTo(0.1 + 0.05 * Math.log(8), 3);
    // the residuals' spread, not the spread of the lengths' mixture
    expect(m.one.spread).toBeLessThan(m.all.spread);
    expect(m).toMatchObject({ one: { items: 100, pairs: 240 }, all: { items: 100, pairs: 240 } });
  });

  it('never lets the best of more words be expected lower: a falling fit is flat', () => {
    const m = fitWordNull(pairs(0.3, -0.05), 100)!;
    expect(m.many.center).toBe(m.one.center);
    // one length only: flat, and the same as the pooled fit
    const one = fitWordNull(
      pairs(0.2, 0).filter((p) => p.words === 4),
      100,
    )!;
    expect(one.many.center).toBe(one.one.center);
    expect(one.one.center).toBeCloseTo(
      fitNull(
        pairs(0.2, 0)
          .filter((p) => p.words === 4)
          .map((p) => p.cosine),
        100,
      )!.center,
      9,
    );
  });

  it('scores a long text against its own length, and a short one no more leniently than the pooled null', () => {
    const m = fitWordNull(pairs(0.1, 0.05), 100)!;
    const cos = Math.tanh(0.35);
    expect(wordScore(m, 40, cos)).toBeCloseTo(standardScore(nullFor(m, 40), cos), 9);
    expect(wordScore(m, 40, cos)).toBeLessThan(standardScore(m.all, cos));
    expect(wordScore(m, 1, cos)).toBeCloseTo(standardScore(m.all, cos), 9);
    expect(standardScore(nullFor(m, 1), cos)).toBeGreaterThan(standardScore(m.all, cos));
    expect(fisherZ(cos)).toBeCloseTo(0.35, 9);
  });

  it('has no fit from too few pairs', () => {
    expect(fitWordNull(pairs(0.1, 0.05).slice(0, 10), 100)).toBeNull();
  });
});
