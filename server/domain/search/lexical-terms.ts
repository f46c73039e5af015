/**
 * One query term's match groups (the lexical planner's per-term steps, domain/search/lexical.ts): its typo
 * corrections from the index's vocabulary, and its WordNet concepts (synonyms, hyponyms, close hypernyms)
 * that the index holds.
 */
import { stemmer } from 'stemmer';
import { expandConcept, type ConceptRelation, type ConceptWord, type Thesaurus } from './concepts.ts';
import type { LexicalIndex } from './lexical-index.ts';
import { anyOf, inColumn, phrase, prefixPhrase, type LexicalExpr } from './lexical-query.ts';
import { surfaceWord, words } from './lexical-words.ts';
import { typoBudget, typoCandidates, typoPrefixes } from './typo.ts';

export type MatchClass = 'exact' | 'prefix' | 'typo' | 'operator' | ConceptRelation;
/** Quality of each match class (domain/search/lexical.ts, module note). */
export const CLASS_QUALITY: Record<MatchClass, number> = {
  exact: 1,
  prefix: 0.8,
  typo: 0.8,
  operator: 0.9,
  synonym: 0.85,
  hyponym: 0.75,
  hypernym: 0.5,
};
/** Concept words kept per group after the vocabulary filter (keeps the expressions small). */
const MAX_CONCEPT_WORDS = 400;

/** The documents one way of matching a query term finds (`runLexical` builds several per term). */
export interface Group {
  term: number;
  cls: MatchClass;
  quality: number;
  /** its phrases (`"word"`, `"two words"`, `"pre"*`) */
  phrases: LexicalExpr[];
  /** the words behind the phrases (for the echo) */
  words: string[];
  /** documents of the scope matching the group's phrases (`count` of the port) */
  count: number;
}

/** Where a term's concept groups go: the index and column asked, the thesaurus, the plan's groups and the term's index. */
export interface TermSite {
  index: LexicalIndex;
  column: string | null;
  thesaurus: Thesaurus;
  groups: Group[];
  term: number;
}

/** A word's concept expansion with the Porter stems of every related text (a pure function of the thesaurus and the word). */
export interface Expansion {
  related: ConceptWord[];
  /** synonyms and hyponyms, in `related` order, and the distinct stems of their words */
  near: string[];
  nearStems: string[];
  /** hypernyms, in `related` order, and the distinct stems of their words */
  hyper: string[];
  hyperStems: string[];
  /** the stems of each related text's words */
  stems: Map<string, string[]>;
}
/** Expansions kept per thesaurus and word: walking WordNet and stemming up to thousands of lemmas per query word costs milliseconds. */
const expansions = new WeakMap<Thesaurus, Map<string, Expansion>>();
/** Words whose expansion is kept per thesaurus (cleared past it). */
const EXPANSIONS_KEPT = 256;

/** `expandConcept(t, word)` with the stems of its texts, computed once per thesaurus and word. */
export function expansionOf(t: Thesaurus, word: string): Expansion {
  let byWord = expansions.get(t);
  if (!byWord) expansions.set(t, (byWord = new Map<string, Expansion>()));
  let e = byWord.get(word);
  if (!e) {
    const related = expandConcept(t, word);
    const stems = new Map(related.map((r) => [r.text, words(r.text).map((w) => stemmer(w))]));
    const near = related.filter((r) => r.relation !== 'hypernym').map((r) => r.text);
    const hyper = related.filter((r) => r.relation === 'hypernym').map((r) => r.text);
    const distinct = (texts: string[]): string[] => [...new Set(texts.flatMap((x) => stems.get(x)!))];
    e = { related, near, nearStems: distinct(near), hyper, hyperStems: distinct(hyper), stems };
    if (byWord.size >= EXPANSIONS_KEPT) byWord.clear();
    byWord.set(word, e);
  }
  return e;
}

/**
 * The typo group of a term no document matches: the index's words within the term's edit budget
 * (domain/search/typo.ts), at most 3 at the best distance, searched as written in a document.
 * @returns null when the word is too short for a budget or nothing is close enough
 */
export async function typoGroup(
  index: LexicalIndex,
  column: string | null,
  term: number,
  t: { word: string; stem: string },
): Promise<{ group: Group; correction: { from: string; to: string } } | null> {
  // The budget follows the shorter of the word as typed and its stem: "seating" (stem "seat") gets none.
  const budget = typoBudget(Math.min([...t.word].length, [...t.stem].length));
  if (budget === 0) return null;
  const vocab = (await Promise.all(typoPrefixes(t.stem).map((p) => index.vocabulary(p)))).flat();
  const candidates = typoCandidates(t.stem, vocab, budget);
  const best = candidates[0]?.distance;
  const kept: { surface: string; distance: number }[] = [];
  for (const cand of candidates) {
    if (cand.distance !== best || kept.length >= 3) break;
    // An index term is a stem ("turquois"); FTS5 would stem it again, so search a word as written
    // whose stem it is, found in a document holding it (a prefix query finds those documents).
    const text = await index.sampleText(inColumn(prefixPhrase(cand.term), column));
    const surface = text ? surfaceWord(text, cand.term) : null;
    if (surface && (await index.count(inColumn(phrase(surface), column))) > 0) kept.push({ surface, distance: cand.distance });
  }
  if (kept.length === 0) return null;
  const phrases = kept.map((k) => phrase(k.surface));
  const count = await index.count(inColumn(anyOf(phrases), column));
  return {
    group: {
      term,
      cls: 'typo',
      quality: best === 1 ? CLASS_QUALITY.typo : CLASS_QUALITY.typo - 0.1,
      phrases,
      words: kept.map((k) => k.surface),
      count,
    },
    correction: { from: t.word, to: kept[0]!.surface },
  };
}

/**
 * Add the synonym and hyponym groups of `word` (WordNet, `expansionOf`) that match documents.
 * @param scale quality factor (a corrected word's concepts are no better than the correction)
 * @returns the documents the added groups match (a sum over groups)
 */
export async function nearConcepts(at: TermSite, word: string, scale: number): Promise<number> {
  const { index, column, groups, term } = at;
  const e = expansionOf(at.thesaurus, word);
  const usable = await keepIndexed(index, e.near, e.nearStems, e.stems);
  let found = 0;
  for (const rel of ['synonym', 'hyponym'] as const) {
    const ws = e.related
      .filter((r) => r.relation === rel && usable.has(r.text))
      .map((r) => r.text)
      .slice(0, MAX_CONCEPT_WORDS);
    if (ws.length === 0) continue;
    const count = await index.count(inColumn(anyOf(ws.map(phrase)), column));
    if (count === 0) continue;
    groups.push({ term, cls: rel, quality: CLASS_QUALITY[rel] * scale, phrases: ws.map(phrase), words: ws, count });
    found += count;
  }
  return found;
}

/** Add the group of `word`'s close hypernyms that match documents (the last resort of a term that matches nothing). */
export async function broaderConcepts(at: TermSite, word: string, scale: number): Promise<void> {
  const { index, column, groups, term } = at;
  const e = expansionOf(at.thesaurus, word);
  const ok = await keepIndexed(index, e.hyper, e.hyperStems, e.stems);
  const ws = e.hyper.filter((h) => ok.has(h));
  const count = ws.length ? await index.count(inColumn(anyOf(ws.map(phrase)), column)) : 0;
  if (count > 0) groups.push({ term, cls: 'hypernym', quality: CLASS_QUALITY.hypernym * scale, phrases: ws.map(phrase), words: ws, count });
}

/** The texts whose every word's stem is in the index (`all`: the distinct stems of `texts`, `stemsOf`: each text's stems). */
async function keepIndexed(index: LexicalIndex, texts: string[], all: string[], stemsOf: Map<string, string[]>): Promise<Set<string>> {
  const known = await index.known(all);
  return new Set(texts.filter((t) => stemsOf.get(t)!.length > 0 && stemsOf.get(t)!.every((s) => known.has(s))));
}
