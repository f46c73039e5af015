/**
 * A small noun hierarchy in the shape of the WordNet `Thesaurus` port, built by hand for unit tests of the
 * search logic (concept expansion, coverage, memos), so each test states its hierarchy in a few lines.
 */
import { stemmer } from 'stemmer';
import type { Thesaurus } from './concepts.ts';

/** One synset: its lemmas, and the indexes (into the same list) of its hypernyms and hyponyms. */
export interface HandSynset {
  words: string[];
  hyper: number[];
  hypo: number[];
  /** whether it is a part of some whole (default false) */
  part?: boolean;
}

export interface HandThesaurusOptions {
  /** the tagged-sense count of `word` in synset `synset` (WordNet's frequency of that sense; default 1) */
  tagCount?: (word: string, synset: number) => number;
  /** whether `lemma` is mainly a noun (default: every lemma is) */
  mainlyNoun?: (lemma: string) => boolean;
  /** the thesaurus's frequent nouns, most frequent first (default none) */
  frequentNouns?: string[];
}

/**
 * The thesaurus of `synsets`: each word's senses are the synsets that list it, in list order.
 * @returns a `Thesaurus` answering from the given lists only
 */
export function handBuiltThesaurus(synsets: HandSynset[], options: HandThesaurusOptions = {}): Thesaurus {
  const tagCount = options.tagCount ?? (() => 1);
  const senses = new Map<string, { synset: number; tagCount: number }[]>();
  synsets.forEach((s, i) => s.words.forEach((w) => senses.set(w, [...(senses.get(w) ?? []), { synset: i, tagCount: tagCount(w, i) }])));
  const frequent = options.frequentNouns ?? [];
  const byStem = new Map<string, string[]>();
  for (const [w, ss] of senses)
    if (!w.includes(' ') && ss.some((x) => x.tagCount > 0)) byStem.set(stemmer(w), [...(byStem.get(stemmer(w)) ?? []), w]);
  return {
    senses: (l) => senses.get(l) ?? [],
    lemmasOf: (s) => synsets[s]?.words ?? [],
    hypernymsOf: (s) => synsets[s]?.hyper ?? [],
    hyponymsOf: (s) => synsets[s]?.hypo ?? [],
    isPart: (s) => synsets[s]?.part ?? false,
    isWord: (l) => senses.has(l),
    mainlyNoun: options.mainlyNoun ?? (() => true),
    frequentNouns: () => frequent,
    taggedWithStem: (stem) => byStem.get(stem) ?? [],
  };
}
