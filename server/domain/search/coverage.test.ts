import { describe, expect, it } from 'vitest';
import { fitNull, SEMANTIC_MAX } from './calibration.ts';
import type { Thesaurus } from './concepts.ts';
import {
  assetFacts,
  colourWeight,
  COLOUR_QUALITY,
  coverage,
  labelsAgree,
  softTerms,
  termConcepts,
  type CoverageTerm,
  type WordNull,
} from './coverage.ts';
import { fuse } from './fusion.ts';
import { handBuiltThesaurus } from './hand-built-thesaurus.ts';
import { LexicalHits } from './hit-lists.ts';

/** furniture > seat > {sofa = couch, chair}; garment > coat > jacket. */
function thesaurus(): Thesaurus {
  return handBuiltThesaurus([
    { words: ['furniture', 'piece of furniture'], hyper: [], hypo: [1] },
    { words: ['seat'], hyper: [0], hypo: [2, 3] },
    { words: ['sofa', 'couch', 'lounge'], hyper: [1], hypo: [] },
    { words: ['chair'], hyper: [1], hypo: [] },
    { words: ['garment'], hyper: [], hypo: [5] },
    { words: ['coat'], hyper: [4], hypo: [6] },
    { words: ['jacket'], hyper: [5], hypo: [] },
    { words: ['leather'], hyper: [], hypo: [] },
  ]);
}

describe('label agreement (products)', () => {
  const t = thesaurus();
  const concepts = (q: string) => q.split(' ').map((w) => termConcepts(t, w, {}));
  it('agrees through the word, a synonym, a hyponym or the same stem, as whole words', () => {
    expect(labelsAgree(concepts('couch'), ['Indoor', 'Sofa'])).toBe(true);
    expect(labelsAgree(concepts('furniture'), ['Chair'])).toBe(true);
    expect(labelsAgree(concepts('gardener'), ['home-and-garden'])).toBe(true);
    expect(labelsAgree(concepts('jacket'), ['Outerwear', 'coat'])).toBe(true); // one level up
  });
  it('does not agree when no label is what a query word stands for', () => {
    expect(labelsAgree(concepts('leather jacket'), ['Indoor', 'Couch', 'Wood', 'home-and-garden'])).toBe(false);
    expect(labelsAgree(concepts('sofa'), ['sofabed'])).toBe(false); // a longer word is not the word
    expect(labelsAgree(concepts('seat'), [])).toBe(false);
  });
  it('counts the correction and the operator synonyms of a word', () => {
    expect(labelsAgree([termConcepts(t, 'sofaa', { correction: 'sofa' })], ['Couch'])).toBe(true);
    const synonyms = [{ kind: 'two_way' as const, input: null, words: ['trainers', 'sneakers'] }];
    expect(labelsAgree([termConcepts(t, 'trainers', { synonyms })], ['Sneakers'])).toBe(true);
  });
});

/** A unit vector at `deg` degrees in the plane of axes 0 and 1 (the cosine of two is the cosine of their angle). */
const at = (deg: number): Float32Array => Float32Array.from([Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180), 0]);

describe('coverage of a query by a document (assets)', () => {
  // a null whose unrelated best-word cosines spread around 0.3 (Fisher z), so 0.95 is far above it
  const model = fitNull(
    Array.from({ length: 60 }, (_, i) => 0.2 + (i % 10) * 0.02),
    100,
  )!;
  // the same null at every length
  const words: WordNull = { nulls: { one: model, many: model, all: model }, accept: 3 };
  const term = (word: string, vector: Float32Array | null, weight = 1, colour = false): CoverageTerm => ({
    word,
    stem: word,
    weight,
    colour,
    vector,
  });
  const doc = (o: { vectors?: Float32Array[]; colours?: string[]; stems?: string[]; lexical?: number[] }) => ({
    stems: new Set(o.stems ?? []),
    words: (o.vectors ?? []).map((vector, i) => ({ word: `w${i}`, vector })),
    colours: new Set(o.colours ?? []),
    lexical: o.lexical ? Float64Array.from(o.lexical) : undefined,
  });

  it('covers a word by a significantly close word of the document, below the word itself', () => {
    const c = coverage([term('ski', at(0))], doc({ vectors: [at(90), at(15)] }), words);
    expect(c.meaning).toBe(true);
    expect(c.relevance).toBeGreaterThanOrEqual(0.5);
    expect(c.relevance).toBeLessThanOrEqual(SEMANTIC_MAX);
    expect(coverage([term('ski', at(0))], doc({ vectors: [at(75)] }), words).relevance).toBe(0);
    expect(coverage([term('ski', at(0))], doc({ stems: ['ski'] }), words).relevance).toBe(1);
  });

  it("is grounded only by the document's own words, narrower words or measured colours, not by a close word vector", () => {
    expect(coverage([term('ski', at(0))], doc({ vectors: [at(5)] }), words)).toMatchObject({ meaning: true, grounded: false });
    expect(coverage([term('ski', at(0))], doc({ stems: ['ski'] }), words).grounded).toBe(true);
    expect(coverage([term('ski', at(0)), term('pink', null, 1, true)], doc({ vectors: [at(5)], colours: ['pink'] }), words).grounded).toBe(
      true,
    );
    expect(coverage([term('ski', at(0))], doc({ lexical: [0.75] }), words).grounded).toBe(true);
    // a broader word only (a hypernym, quality 0.5) does not ground it
    expect(coverage([term('ski', at(0))], doc({ lexical: [0.5] }), words).grounded).toBe(false);
  });

  it('needs most of the query weight: one covered word of two weighs what it weighs', () => {
    const terms = [term('ski', at(0), 1), term('slope', Float32Array.from([0, 0, 1]), 3)];
    const c = coverage(terms, doc({ vectors: [at(10)] }), words);
    expect(c.relevance).toBeLessThan(0.5);
    expect(c.complete).toBe(false);
    const both = coverage(terms, doc({ vectors: [at(5)], lexical: [0, 1] }), words);
    expect(both.relevance).toBeGreaterThan(0.5);
    expect(both.complete).toBe(true);
  });

  it('matches a colour word by the measured colours only, never by an embedding', () => {
    const pink = term('pink', null, 1, true);
    expect(coverage([pink], doc({ colours: ['pink', 'green'] }), words)).toMatchObject({ relevance: COLOUR_QUALITY, colour: true });
    // even a document word with the very same vector does not cover a colour word
    expect(coverage([{ ...pink, vector: at(0) }], doc({ vectors: [at(0)], colours: ['green'] }), words).relevance).toBe(0);
    // the text saying it still counts; a WordNet noun sense of the word ("pink", a flower) does not
    expect(coverage([pink], doc({ lexical: [1], colours: ['green'] }), words).relevance).toBe(1);
    expect(coverage([pink], doc({ lexical: [0.5], colours: ['green'] }), words).relevance).toBe(0);
  });

  it('weighs a colour by how many documents show it, not only by how many say it', () => {
    // no text says "pink", one photo in ten shows it: rare, so it weighs, whatever the planner's missing-word rule gave
    expect(colourWeight({ plannerWeight: 0.4, textCount: 0, share: 0.1, size: 100 })).toBeCloseTo(Math.log(1 + 100 / 11), 10);
    // texts say it more often than the sample shows it: the texts' count
    expect(colourWeight({ plannerWeight: 0.4, textCount: 30, share: 0.1, size: 100 })).toBeCloseTo(Math.log(1 + 100 / 31), 10);
    expect(colourWeight({ plannerWeight: 0.4, textCount: 0, share: 0, size: 100 })).toBe(0.4);
  });

  it('reads descriptive words and measured colours from an asset row, colour names apart', () => {
    const f = assetFacts({
      name_words: 'red barn',
      alt_text: 'A red barn in a snowy field',
      tags: ['farm', 'barn'],
      auto_tags: ['white', 'text', 'red'],
      user_fields: ['alt_text', 'tags'],
      purpose: null,
    });
    expect(f.words).toEqual(['barn', 'snowy', 'field', 'farm']);
    // the keywords of the file's metadata are words too; the markers of measured facts are not
    expect(
      assetFacts({
        name_words: 'img',
        alt_text: null,
        tags: [],
        auto_tags: ['grey', 'text', 'monochrome', 'Frost', 'Yard'],
        user_fields: [],
        purpose: null,
      }).words,
    ).toEqual(['img', 'frost', 'yard']);
    expect([...f.colours].sort()).toEqual(['red', 'white']);
  });

  it("keeps a name-only asset's broader words apart from its own words", () => {
    const row = { name_words: 'prairie falcon', alt_text: null, tags: [], auto_tags: ['grey'], user_fields: [], purpose: null };
    const f = assetFacts(row, () => ['hawk', 'bird of prey', 'falcon']);
    expect(f.words).toEqual(['prairie', 'falcon']);
    expect(f.broader).toEqual(['hawk', 'bird', 'prey']);
    // an asset with typed words is not name-only: no broader words
    expect(assetFacts({ ...row, tags: ['raptor'] }, () => ['hawk']).broader).toEqual([]);
  });

  it('lets related words stand in for a term only where the library lacks it, or in a descriptive query', () => {
    const term = (count: number, colour = false) => ({ count, colour });
    // "cactus" said by one document: no soft match; "pub" said by none: soft match
    expect(softTerms([term(1)])).toEqual([false]);
    expect(softTerms([term(0)])).toEqual([true]);
    expect(softTerms([term(4), term(0)])).toEqual([false, true]);
    // three content words: every word may be matched by related words; a colour word never is
    expect(softTerms([term(2), term(1), term(0, true), term(5)])).toEqual([true, true, false, true]);
    expect(softTerms([term(2), term(0, true), term(5)])).toEqual([false, false, false]);
  });
});

describe('corroborated fusion', () => {
  const lexical = LexicalHits.of([{ seq: 1, relevance: 1, matchedBy: ['text'], complete: true }]);
  const vector = [
    { seq: 2, relevance: 0.6 },
    { seq: 3, relevance: 0.55 },
  ];
  it('keeps a meaning-only document out of the matches unless it is corroborated', () => {
    const r = fuse(lexical, vector, 'meaning', null, (seq) => seq === 3);
    expect(r.matchSeqs()).toEqual([1, 3]);
    const two = r.toArray().find((f) => f.seq === 2)!;
    expect(two).toMatchObject({ match: false, matchedBy: ['meaning'] });
    expect(two.relevance).toBeLessThan(0.5);
    expect(fuse(lexical, vector).matchSeqs()).toEqual([1, 2, 3]); // without the rule, meaning alone suffices
  });
});
