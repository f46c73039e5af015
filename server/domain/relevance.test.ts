import { describe, expect, it } from 'vitest';
import {
  acceptanceScore,
  fitNull,
  isStale,
  normalQuantile,
  semanticRelevance,
  standardScore,
  textNullCosines,
  visualRelevance,
  NEAR_DUPLICATE,
  SEMANTIC_MAX,
} from './search/calibration.ts';
import { chooseSenses, expandConcept, nounLemma, type Thesaurus } from './search/concepts.ts';
import { fuse } from './search/fusion.ts';
import { handBuiltThesaurus } from './search/hand-built-thesaurus.ts';
import { LexicalHits } from './search/hit-lists.ts';
import { correctedQuery, operatorSynonyms, surfaceWord } from './search/lexical-words.ts';
import { boundedOsa, typoBudget, typoCandidates, typoPrefixes } from './search/typo.ts';

describe('typo tolerance', () => {
  it('budgets typos like Meilisearch: none under 5 letters, one up to 8, two beyond', () => {
    expect([4, 5, 8, 9, 12].map(typoBudget)).toEqual([0, 1, 1, 2, 2]);
  });
  it('counts insertions, deletions, substitutions and adjacent transpositions once each (OSA)', () => {
    expect(boundedOsa('falcon', 'falcon', 2)).toBe(0);
    expect(boundedOsa('falcn', 'falcon', 2)).toBe(1); // deletion
    expect(boundedOsa('catcus', 'cactus', 2)).toBe(1); // transposition
    expect(boundedOsa('neckalce', 'necklace', 2)).toBe(1);
    expect(boundedOsa('flowr', 'flower', 2)).toBe(1);
    expect(boundedOsa('kitten', 'sitting', 3)).toBe(3);
    expect(boundedOsa('ca', 'abc', 3)).toBe(3); // OSA, not unrestricted Damerau (which gives 2)
  });
  it('stops past the bound', () => {
    expect(boundedOsa('abcdefgh', 'zyxwvuts', 2)).toBe(3);
    expect(boundedOsa('short', 'muchlongerword', 1)).toBe(2);
  });
  it('ranks candidates by distance, then document count', () => {
    const vocab = [
      { term: 'flower', docs: 3 },
      { term: 'flow', docs: 9 },
      { term: 'flowe', docs: 1 },
      { term: 'glower', docs: 50 },
      { term: 'flowr', docs: 4 },
    ];
    expect(typoCandidates('flowr', vocab, 1).map((c) => [c.term, c.distance])).toEqual([
      ['flow', 1],
      ['flower', 1],
      ['flowe', 1],
    ]);
    expect(typoCandidates('flowr', vocab, 0)).toEqual([]);
  });
  it('scans the ranges of the first and second letter', () => {
    expect(typoPrefixes('lfower')).toEqual(['l', 'f']);
  });
});

/** A hand-built noun hierarchy: entity > plant > flower > {cyclamen, anemone}; flower = bloom = blossom. */
function tinyThesaurus(): Thesaurus {
  return handBuiltThesaurus(
    [
      { words: ['plant', 'flora'], hyper: [], hypo: [1] },
      { words: ['flower', 'bloom', 'blossom'], hyper: [0], hypo: [2, 3] },
      { words: ['cyclamen'], hyper: [1], hypo: [] },
      { words: ['anemone', 'windflower'], hyper: [1], hypo: [] },
      { words: ['sea anemone', 'anemone'], hyper: [], hypo: [] },
      { words: ['blue', 'blue sky'], hyper: [], hypo: [] },
    ],
    {
      tagCount: (w, i) => (w === 'anemone' ? (i === 3 ? 9 : 1) : 1),
      mainlyNoun: (l) => l !== 'blue',
      frequentNouns: ['plant', 'flower'],
    },
  );
}

describe('concept expansion (WordNet shape)', () => {
  const t = tinyThesaurus();
  it('lemmatises nouns with morphy detachment rules', () => {
    expect(nounLemma(t, 'flowers')).toBe('flower');
    expect(nounLemma(t, 'blossoms')).toBe('blossom');
    expect(nounLemma(t, 'zebras')).toBeNull();
  });
  it('gives synonyms, hyponyms all the way down and one level of hypernyms', () => {
    const e = expandConcept(t, 'flowers');
    expect(e.filter((x) => x.relation === 'synonym').map((x) => x.text)).toEqual(['bloom', 'blossom']);
    expect(e.filter((x) => x.relation === 'hyponym').map((x) => x.text)).toEqual(['cyclamen', 'anemone', 'windflower']);
    expect(e.filter((x) => x.relation === 'hypernym').map((x) => x.text)).toEqual(['plant', 'flora']);
    expect(
      expandConcept(t, 'plant')
        .filter((x) => x.relation === 'hyponym')
        .map((x) => x.text),
    ).toContain('cyclamen');
  });
  it('uses a later sense only when it is tagged often enough, or when all are rare', () => {
    expect(
      chooseSenses([
        { synset: 1, tagCount: 50 },
        { synset: 2, tagCount: 3 },
        { synset: 3, tagCount: 10 },
      ]),
    ).toEqual([1, 3]);
    expect(
      chooseSenses([
        { synset: 1, tagCount: 1 },
        { synset: 2, tagCount: 0 },
        { synset: 3, tagCount: 0 },
        { synset: 4, tagCount: 0 },
      ]),
    ).toEqual([1, 2, 3]);
  });

  it('leaves out a concept word whose stem belongs to a more frequent noun of another sense', () => {
    // sport > {boxing, bicycling, skiing}; "box" (a container) and "bicycle" are read more often than
    // the sports and share their Porter stems; "ski" is read less often than "skiing"
    const t = handBuiltThesaurus(
      [
        { words: ['sport', 'athletics'], hyper: [], hypo: [1, 2, 3] },
        { words: ['boxing', 'pugilism'], hyper: [0], hypo: [] },
        { words: ['bicycling', 'cycling'], hyper: [0], hypo: [] },
        { words: ['skiing'], hyper: [0], hypo: [] },
        { words: ['box'], hyper: [], hypo: [] },
        { words: ['bicycle', 'bike'], hyper: [], hypo: [] },
        { words: ['ski'], hyper: [], hypo: [] },
        // the same stem in the same sense is no other word: "woods" is a synset of "wood" too
        { words: ['forest', 'wood', 'woods'], hyper: [8], hypo: [] },
        { words: ['vegetation'], hyper: [], hypo: [7] },
      ],
      { tagCount: (w) => ({ box: 30, bicycle: 12, skiing: 4, ski: 2, wood: 40 })[w] ?? 1 },
    );
    expect(expandConcept(t, 'sport').map((c) => c.text)).toEqual(['athletics', 'pugilism', 'cycling', 'skiing']);
    expect(expandConcept(t, 'vegetation').map((c) => c.text)).toEqual(['forest', 'wood', 'woods']);
  });
});

describe('operator synonyms and corrections', () => {
  const rules = [
    { kind: 'two_way' as const, input: null, words: ['sofa', 'couch', 'settee'] },
    { kind: 'one_way' as const, input: 'tee', words: ['t-shirt'] },
  ];
  it('applies two-way rules both ways and one-way rules one way, by stem', () => {
    expect(operatorSynonyms(rules, 'couches')).toEqual(['sofa', 'settee']);
    expect(operatorSynonyms(rules, 'tee')).toEqual(['t-shirt']);
    expect(operatorSynonyms(rules, 't-shirt')).toEqual([]);
  });
  it('finds the written word of a stem and rewrites the query', () => {
    expect(surfaceWord('Turquoise globe earrings', 'turquois')).toBe('turquoise');
    expect(correctedQuery('Turqoise earings', [{ from: 'turqoise', to: 'turquoise' }])).toBe('turquoise earings');
    expect(correctedQuery('falcon', [])).toBeNull();
  });
});

describe('calibration', () => {
  it('inverts the normal CDF (Acklam)', () => {
    expect(normalQuantile(0.5)).toBeCloseTo(0, 8);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
  });
  it('needs stronger evidence in larger libraries (Bonferroni, at least 20 documents)', () => {
    expect(acceptanceScore(1)).toBeCloseTo(acceptanceScore(20), 10);
    expect(acceptanceScore(20)).toBeCloseTo(2.807, 3);
    expect(acceptanceScore(100)).toBeCloseTo(3.29, 2);
    expect(acceptanceScore(100_000)).toBeGreaterThan(4.8);
  });
  it('fits a robust null in Fisher-z space and scores against it', () => {
    const sims = Array.from({ length: 200 }, (_, i) => Math.tanh(0.1 + 0.2 * normalQuantile((i + 0.5) / 200)));
    const m = fitNull([...sims, 0.99, 0.98, 0.97], 200)!; // a few contaminating related pairs barely move it
    expect(m.center).toBeCloseTo(0.1, 1);
    expect(m.spread).toBeCloseTo(0.2, 1);
    expect(standardScore(m, Math.tanh(0.1 + 3 * 0.2))).toBeCloseTo(3, 0);
    expect(fitNull([0.1, 0.2], 2)).toBeNull();
    expect(isStale(m, 210)).toBe(false);
    expect(isStale(m, 300)).toBe(true);
  });
  it('maps standard scores to relevance: 0.5 at acceptance, capped below complete lexical matches', () => {
    expect(semanticRelevance(3, 3)).toBe(0.5);
    expect(semanticRelevance(100, 3)).toBe(SEMANTIC_MAX);
    expect(semanticRelevance(1, 3)).toBeLessThan(0.5);
    expect(visualRelevance(NEAR_DUPLICATE + 0.01, 20, 3)).toBeGreaterThanOrEqual(0.95);
    expect(visualRelevance(0.5, 4, 3)).toBeCloseTo(0.6, 5);
    // a library too small to calibrate (z null): a near-duplicate is still a match, anything else is not
    expect(visualRelevance(NEAR_DUPLICATE + 0.05, null, 3)).toBeGreaterThanOrEqual(0.95);
    expect(visualRelevance(0.8, null, 3)).toBe(0);
  });
  it('pairs each probe only with documents that do not contain it', () => {
    const v = (x: number, y: number) => Float32Array.from([x, y]);
    const cos = textNullCosines(
      [
        { stems: new Set(['cactu']), vector: v(1, 0) },
        { stems: new Set(['bird']), vector: v(0, 1) },
      ],
      [{ stem: 'cactu', vector: v(1, 0) }],
    );
    expect(cos).toEqual([0]);
  });
});

describe('fusion', () => {
  it('never ranks a semantic-only hit above a complete lexical match, and keeps non-matches below 0.5', () => {
    const f = fuse(
      LexicalHits.of([
        { seq: 1, relevance: 1, matchedBy: ['text'], complete: true },
        { seq: 2, relevance: 0.3, matchedBy: ['text'], complete: false },
      ]),
      [
        { seq: 3, relevance: 0.74 },
        { seq: 1, relevance: 0.6 },
        { seq: 2, relevance: 0.45 },
      ],
    ).toArray();
    expect(f.map((x) => [x.seq, x.match])).toEqual([
      [1, true],
      [3, true],
      [2, false],
    ]);
    expect(f[0]!.matchedBy).toEqual(['text', 'meaning']);
    expect(f[1]!.matchedBy).toEqual(['meaning']);
    expect(f[2]!.relevance).toBeLessThan(0.5);
  });

  it('takes the image model list as the stronger vector evidence, reported as visual, and changes nothing without it', () => {
    const lexical = LexicalHits.of([{ seq: 1, relevance: 0.3, matchedBy: ['text'], complete: false }]);
    const meaning = [
      { seq: 2, relevance: 0.6 },
      { seq: 3, relevance: 0.4 },
    ];
    const image = [
      { seq: 4, relevance: 0.7 }, // only the picture matches
      { seq: 2, relevance: 0.55 }, // both: the stronger side counts, both are named
      { seq: 1, relevance: 0.9 }, // capped like semantic, still below a complete lexical match
      { seq: 5, relevance: 0.3 }, // a picture-only non-match: a suggestion candidate
    ];
    const f = fuse(lexical, meaning, 'meaning', image).toArray();
    const by = new Map(f.map((x) => [x.seq, x]));
    expect(f.filter((x) => x.match).map((x) => x.seq)).toEqual([1, 4, 2]);
    expect(by.get(4)).toMatchObject({ relevance: 0.7, matchedBy: ['visual'] });
    expect(by.get(2)).toMatchObject({ relevance: 0.6, matchedBy: ['meaning', 'visual'] });
    expect(by.get(1)!.relevance).toBeCloseTo(SEMANTIC_MAX + 0.15 * 0.3, 3);
    expect(by.get(1)!.matchedBy).toEqual(['text', 'visual']);
    expect(by.get(5)).toMatchObject({ match: false, matchedBy: ['visual'] });
    expect(by.get(3)).toMatchObject({ match: false, matchedBy: ['meaning'] });
    expect(fuse(lexical, meaning, 'meaning', null).toArray()).toEqual(fuse(lexical, meaning).toArray());
  });
});
