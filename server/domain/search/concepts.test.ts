import { describe, expect, it } from 'vitest';
import { broaderWords, expandConcept, headNoun, nounLemma, type Thesaurus } from './concepts.ts';
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
