import { describe, expect, it } from 'vitest';
import { nearestKnown, oneEditAway } from './spelling.ts';

/** A vocabulary in frequency order (rank = position), as the word vectors keep theirs. */
const rankOf = (words: string[]) => {
  const m = new Map(words.map((w, i) => [w, i]));
  return (w: string) => m.get(w);
};

describe('spelling against a ranked vocabulary', () => {
  it('makes every one-edit string: insertions, deletions, swaps and neighbouring-key replacements', () => {
    const e = oneEditAway('cat');
    expect(e.has('at')).toBe(true); // deletion
    expect(e.has('cart')).toBe(true); // insertion
    expect(e.has('act')).toBe(true); // swap
    expect(e.has('cay')).toBe(true); // t → y, keys side by side
    expect(e.has('cab')).toBe(false); // t → b are not neighbours on a row
    expect(e.has('cat')).toBe(false);
  });
  it('takes the most frequent word one edit away, never a far replacement', () => {
    const vocab = rankOf(['the', 'janet', 'caucus', 'jacket', 'cactus', 'mountain']);
    expect(nearestKnown('mountian', vocab)).toBe('mountain');
    expect(nearestKnown('catcus', vocab)).toBe('cactus'); // "caucus" is more frequent but t → u is no neighbouring key
    expect(nearestKnown('jaket', vocab)).toBe('jacket'); // and k → n neither ("janet")
  });
  it('leaves known, short, non-letter and far words alone', () => {
    const vocab = rankOf(['cactus', 'cat', 'cart']);
    expect(nearestKnown('cactus', vocab)).toBeNull();
    expect(nearestKnown('cst', vocab)).toBeNull(); // under four letters
    expect(nearestKnown('cact5s', vocab)).toBeNull();
    expect(nearestKnown('kaktos', vocab)).toBeNull(); // two edits
  });
});
