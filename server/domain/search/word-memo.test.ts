import { stemmer } from 'stemmer';
import { describe, expect, it } from 'vitest';
import { broaderWords, nounLemma, type Thesaurus } from './concepts.ts';
import { coHyponyms } from './coverage.ts';
import { handBuiltThesaurus } from './hand-built-thesaurus.ts';
import { memoised, wordMemoOf } from './word-memo.ts';

/** animal > bird > {falcon > prairie falcon, hawk}; vehicle > car. */
function birds(): Thesaurus {
  return handBuiltThesaurus(
    [
      { words: ['animal'], hyper: [], hypo: [1] },
      { words: ['bird'], hyper: [0], hypo: [2, 4] },
      { words: ['falcon'], hyper: [1], hypo: [3] },
      { words: ['prairie falcon'], hyper: [2], hypo: [] },
      { words: ['hawk'], hyper: [1], hypo: [] },
      { words: ['vehicle'], hyper: [], hypo: [6] },
      { words: ['car', 'automobile'], hyper: [5], hypo: [] },
    ],
    { tagCount: () => 5 },
  );
}

describe('word memo', () => {
  const t = birds();
  const memo = wordMemoOf(t);
  it('answers as the functions it remembers, on first and later asks', () => {
    const names = [['prairie', 'falcon'], ['falcons'], ['red', 'car', 'hawk'], ['cars', 'prairie'], ['unknown'], []];
    for (let round = 0; round < 2; round++) {
      for (const n of names) expect(memo.broader(n)).toEqual(broaderWords(t, n));
      for (const w of ['falcons', 'car', 'cars', 'running', 'xyz']) {
        expect(memo.stem(w)).toBe(stemmer(w));
        expect(memo.lemma(w)).toBe(nounLemma(t, w));
        expect(memo.siblings(w)).toEqual(coHyponyms(t, w));
      }
    }
    expect(memo.broader(['prairie', 'falcon'])).toEqual(['falcon', 'bird']);
  });
  it('is one memo per thesaurus, and answers nothing of a thesaurus without one', () => {
    expect(wordMemoOf(t)).toBe(memo);
    expect(wordMemoOf(birds())).not.toBe(memo);
    const none = wordMemoOf(null);
    expect(none.broader(['prairie', 'falcon'])).toEqual([]);
    expect(none.lemma('falcon')).toBeNull();
    expect(none.stem('falcons')).toBe('falcon');
  });
  it('computes a key once and stays within its bound', () => {
    const calls: string[] = [];
    const f = memoised((k) => (calls.push(k), k.length), 3);
    expect([f('a'), f('bb'), f('a'), f('ccc')]).toEqual([1, 2, 1, 3]);
    expect(calls).toEqual(['a', 'bb', 'ccc']);
    f('dddd'); // the fourth key empties the memo first
    f('a');
    expect(calls).toEqual(['a', 'bb', 'ccc', 'dddd', 'a']);
  });
});
