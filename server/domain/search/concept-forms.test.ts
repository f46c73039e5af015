import { describe, expect, it } from 'vitest';
import type { Thesaurus } from './concepts.ts';
import { checkCandidates, checkConceptForms, documentForms, saysAsNoun } from './concept-forms.ts';
import { BY_BIT, termCells } from './lexical-candidates.ts';

const LEMMAS: Record<string, string> = {
  ripples: 'ripple',
  ripple: 'ripple',
  dunes: 'dune',
  dune: 'dune',
  plants: 'plant',
  plant: 'plant',
};
const lemmasOf = (w: string): string[] => (w === 'shoes' ? ['shoes', 'shoe'] : LEMMAS[w] ? [LEMMAS[w]] : []);
const says = (...texts: string[]) => saysAsNoun(() => documentForms(texts), lemmasOf);
const q = (...xs: number[]) => Float64Array.from(xs);
const k = (...xs: number[]) => Uint8Array.from(xs);

describe('documentForms', () => {
  it('splits each text as FTS5 unicode61 does (lower case, hyphens and punctuation apart, diacritics removed); empty texts drop', () => {
    expect(documentForms(['Wind-rippled sand DUNES, café crème', null, ''])).toEqual([
      ['wind', 'rippled', 'sand', 'dunes', 'cafe', 'creme'],
    ]);
  });
});

describe('saysAsNoun', () => {
  it('finds a word as its lemma or an inflection that reads back to it, not as a verb of the same stem', () => {
    expect(says('Ripples in the sand')('ripple')).toBe(true);
    expect(says('Wind-rippled sand dunes')('ripple')).toBe(false);
  });

  it('reads a word that is a lemma of its own and an inflection of another as both', () => {
    expect(says('Black high top shoes')('shoe')).toBe(true);
    expect(says('Black high top shoes')('shoes')).toBe(true);
    expect(says('two tennis shoes')('tennis shoe')).toBe(true);
  });

  it('finds a phrase only as its words in a row, the last one inflected or not', () => {
    expect(says('a steel plant by the river')('steel plant')).toBe(true);
    expect(says('two steel plants')('steel plant')).toBe(true);
    expect(says('steel beams beside a plant')('steel plant')).toBe(false);
    expect(says('steel', 'plant')('steel plant')).toBe(false); // not across two texts
  });
});

describe('checkConceptForms', () => {
  const hyponym = [{ quality: 0.75, words: ['ripple', 'rippling'] }];

  it('drops a concept match the document holds only as a verb form of the same stem', () => {
    const out = checkConceptForms(q(0, 0.75), k(0, BY_BIT.concept), [[], hyponym], says('Wind-rippled sand dunes'));
    expect([...out]).toEqual([0, 0]);
  });

  it('keeps it where the document says the noun', () => {
    expect([...checkConceptForms(q(0.75), k(BY_BIT.concept), [hyponym], says('Ripples in the sand'))]).toEqual([0.75]);
  });

  it('falls back to the best group the document does say', () => {
    const groups = [
      [
        { quality: 0.85, words: ['ripple'] },
        { quality: 0.75, words: ['dune'] },
      ],
    ];
    expect([...checkConceptForms(q(0.85), k(BY_BIT.concept), groups, says('rippled dunes'))]).toEqual([0.75]);
  });

  it('checks a group of phrases and words word by word: a phrase in the group does not vouch for the rest', () => {
    const groups = [[{ quality: 0.75, words: ['industrial plant', 'ripple'] }]];
    expect([...checkConceptForms(q(0.75), k(BY_BIT.concept), groups, says('Wind-rippled sand'))]).toEqual([0]);
  });

  it('leaves the word itself, a correction and the scope’s own synonyms as the planner found them', () => {
    const none = says('rippled');
    expect([...checkConceptForms(q(1), k(BY_BIT.text | BY_BIT.concept), [hyponym], none)]).toEqual([1]);
    expect([...checkConceptForms(q(0.8), k(BY_BIT.typo), [hyponym], none)]).toEqual([0.8]);
    expect([...checkConceptForms(q(0.9), k(BY_BIT.concept), [null], none)]).toEqual([0.9]);
  });

  it('does not modify its input', () => {
    const quality = q(0.75);
    checkConceptForms(quality, k(BY_BIT.concept), [hyponym], () => false);
    expect([...quality]).toEqual([0.75]);
  });
});

describe('checkCandidates', () => {
  // nounLemmas asks the thesaurus only whether a word is a lemma
  const thesaurus = { isWord: (w: string) => ['ripple', 'dune', 'sand'].includes(w) } as unknown as Thesaurus;
  const hyponym = [{ quality: 0.75, words: ['ripple'] }];

  it('re-scores in place the candidates matched only by a concept, clears the concept bit of a term no group holds, and reads only their texts', async () => {
    // three candidates × two terms ("sand", "waves"): exact + concept, exact + concept, exact + exact
    const cells = termCells(3, 2);
    cells.quality.set([1, 0.75, 1, 0.75, 1, 1]);
    cells.byMask.set([BY_BIT.text, BY_BIT.concept, BY_BIT.text, BY_BIT.concept, BY_BIT.text, BY_BIT.text]);
    const asked: number[][] = [];
    const texts = new Map([
      [11, ['Wind-rippled sand dunes']],
      [12, ['Ripples in the sand']],
    ]);
    await checkCandidates(Float64Array.from([11, 12, 13]), cells, [[], hyponym], thesaurus, async (seqs) => {
      asked.push([...seqs]);
      return texts;
    });
    expect(asked).toEqual([[11, 12]]);
    expect([...cells.quality]).toEqual([1, 0, 1, 0.75, 1, 1]);
    expect([...cells.byMask]).toEqual([BY_BIT.text, 0, BY_BIT.text, BY_BIT.concept, BY_BIT.text, BY_BIT.text]);
  });

  it('reads nothing when no candidate has a term matched only by a WordNet concept', async () => {
    const cells = termCells(1, 1);
    cells.quality.set([0.9]);
    cells.byMask.set([BY_BIT.concept]);
    let read = false;
    await checkCandidates(Float64Array.from([5]), cells, [null], thesaurus, async () => ((read = true), new Map()));
    expect(read).toBe(false);
    expect([...cells.quality]).toEqual([0.9]);
  });
});
