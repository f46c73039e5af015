import { describe, expect, it } from 'vitest';
import { broaderWords, expandConcept, headNoun, nounLemma, querySenses, type Thesaurus } from './concepts.ts';
import { handBuiltThesaurus } from './hand-built-thesaurus.ts';

/** plant > succulent > cactus; geological formation > beach; "zing" (a sound) to catch chance endings. */
function plants(): Thesaurus {
  return handBuiltThesaurus(
    [
      { words: ['plant'], hyper: [], hypo: [1] },
      { words: ['succulent'], hyper: [0], hypo: [2] },
      { words: ['cactus'], hyper: [1], hypo: [] },
      { words: ['geological formation'], hyper: [], hypo: [4] },
      { words: ['beach'], hyper: [3], hypo: [] },
      { words: ['zing'], hyper: [], hypo: [] },
      { words: ['sunset'], hyper: [], hypo: [] },
    ],
    { tagCount: () => 5 },
  );
}

describe('compound words of a file name', () => {
  const t = plants();
  const lemmaOf = (w: string): string | null => nounLemma(t, w);
  it('finds the head noun a compound the thesaurus lacks ends in', () => {
    expect(headNoun('notocactus', lemmaOf)).toBe('cactus');
    expect(headNoun('echinocacti', lemmaOf)).toBeNull(); // an irregular plural is not guessed
    expect(headNoun('sunsetbeaches', lemmaOf)).toBe('beach');
  });
  it('leaves short endings, short modifiers and non-letters alone', () => {
    expect(headNoun('amazing', lemmaOf)).toBeNull(); // "zing" is too short a head to be more than chance
    expect(headNoun('cactus', lemmaOf)).toBeNull(); // no modifier before it
    expect(headNoun('abcactus', lemmaOf)).toBeNull(); // a modifier of two letters
    expect(headNoun('noto-cactus', lemmaOf)).toBeNull();
  });
  it('gives the head and its hypernyms as broader words of a name, and never splits a known word', () => {
    expect(broaderWords(t, ['notocactus', 'minimus'])).toEqual(['cactus', 'succulent', 'plant']);
    expect(broaderWords(t, ['cactus'])).toEqual(['succulent', 'plant']);
    expect(broaderWords(t, ['sunsetbeach'])).toEqual(['beach', 'geological formation']);
  });
});

describe('the sense a document word is read in', () => {
  // "anemone" is a flower first and a sea animal second, and neither sense is tagged in SemCor
  const t = handBuiltThesaurus(
    [
      { words: ['animal'], hyper: [], hypo: [1] },
      { words: ['invertebrate'], hyper: [0], hypo: [4] },
      { words: ['flower'], hyper: [], hypo: [3] },
      { words: ['anemone', 'windflower'], hyper: [2], hypo: [] },
      { words: ['sea anemone', 'anemone'], hyper: [1], hypo: [] },
    ],
    { tagCount: (w) => (w === 'animal' || w === 'flower' ? 40 : 0) },
  );
  const words = (w: string): string[] => expandConcept(t, w).map((c) => c.text);
  it('reaches an untagged word only in its first sense', () => {
    expect(words('flower')).toContain('anemone');
    expect(words('animal')).toContain('sea anemone');
    expect(words('animal')).not.toContain('anemone');
  });
});

describe('a later sense that is a one-word synonym’s usual one', () => {
  // "bracelet" is first a watchband, then jewellery, where "bangle" is first; neither is tagged in SemCor
  const t = handBuiltThesaurus(
    [
      { words: ['jewelry'], hyper: [], hypo: [2] },
      { words: ['watchband', 'bracelet'], hyper: [], hypo: [] },
      { words: ['bangle', 'bracelet'], hyper: [0], hypo: [] },
    ],
    { tagCount: (w) => (w === 'jewelry' ? 10 : 0) },
  );
  it('reaches an untagged word in it too', () => {
    expect(expandConcept(t, 'jewelry').map((c) => c.text)).toEqual(['bangle', 'bracelet']);
  });
});

describe('the sense a query word is expanded in', () => {
  // WordNet's top: entity > physical entity | abstraction > property > visual property > colour. "perfume" is
  // a pleasant smell (first sense) and a toiletry, tagged as often; "blue" is a colour and blue clothing.
  const t = handBuiltThesaurus(
    [
      { words: ['entity'], hyper: [], hypo: [1, 2] },
      { words: ['physical entity'], hyper: [0], hypo: [5, 7] },
      { words: ['abstraction'], hyper: [0], hypo: [3, 6] },
      { words: ['property'], hyper: [2], hypo: [4] },
      { words: ['visual property'], hyper: [3], hypo: [9] },
      { words: ['toiletry'], hyper: [1], hypo: [10] },
      { words: ['odor'], hyper: [2], hypo: [8] },
      { words: ['clothing'], hyper: [1], hypo: [11] },
      { words: ['aroma', 'fragrance', 'perfume', 'scent'], hyper: [6], hypo: [] },
      { words: ['blue', 'blueness'], hyper: [4], hypo: [12] },
      { words: ['perfume', 'essence'], hyper: [5], hypo: [] },
      { words: ['blue'], hyper: [7], hypo: [] },
      { words: ['navy', 'navy blue'], hyper: [9], hypo: [] },
    ],
    { tagCount: (w) => (w === 'perfume' ? 2 : 9) },
  );
  const words = (w: string): string[] => expandConcept(t, w).map((c) => c.text);
  it('reads a word that is as often a thing as an idea as the thing', () => {
    expect(querySenses(t, 'perfume')).toEqual([10]);
    expect(words('perfume')).toContain('essence');
    expect(words('perfume')).not.toContain('scent');
  });
  it('keeps an idea that is the word’s only or main reading, and a colour', () => {
    expect(words('fragrance')).toContain('scent');
    expect(querySenses(t, 'blue')).toEqual([9, 11]);
    expect(words('blue')).toContain('navy');
  });
});

describe('kinds that are parts of a whole', () => {
  // a pocket is a pouch, so a bag, and a part of a garment; a kitchen is a room, and rooms are parts of buildings
  const t = handBuiltThesaurus(
    [
      { words: ['bag'], hyper: [], hypo: [1, 2] },
      { words: ['pouch'], hyper: [0], hypo: [3] },
      { words: ['backpack'], hyper: [0], hypo: [] },
      { words: ['pocket'], hyper: [1], hypo: [4], part: true },
      { words: ['breast pocket'], hyper: [3], hypo: [], part: true },
      { words: ['room'], hyper: [], hypo: [6], part: true },
      { words: ['kitchen'], hyper: [5], hypo: [], part: true },
    ],
    { tagCount: () => 5 },
  );
  const words = (w: string): string[] => expandConcept(t, w).map((c) => c.text);
  it('does not reach a part of something else from a word that names a whole', () => {
    expect(words('bag')).toEqual(expect.arrayContaining(['pouch', 'backpack']));
    expect(words('bag')).not.toContain('pocket');
    expect(words('bag')).not.toContain('breast pocket');
  });
  it('reaches kinds of a part from a word that names a part', () => {
    expect(words('room')).toContain('kitchen');
    expect(words('pocket')).toContain('breast pocket');
  });
});
