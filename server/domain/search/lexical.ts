/**
 * The lexical planner shared by asset search, product search and the picker's facets (pure logic over
 * a `LexicalIndex` port, so another backend can run the same plan).
 *
 * Each query word becomes a term with groups of alternatives, each group a match class with a
 * quality in [0, 1]:
 * - exact (1.0): the word as the index stems it (FTS5 Porter);
 * - prefix (0.8): only the last word, only when it is no dictionary word and matches nothing exactly
 *   (an unfinished word: "flo" → flower), so "cat" never ranks "catalog";
 * - typo (0.8 for one edit, 0.7 for two): vocabulary terms within the typo budget of a word that
 *   matches nothing (domain/search/typo.ts); a dictionary word is corrected only when its synonyms and
 *   hyponyms match nothing either ("sweater" means the jumper the shop sells, not the "seater" one edit
 *   away), and then only as a guess below a match (`DICTIONARY_TYPO`), its hypernyms after that;
 * - operator (0.9): the workspace's or store's synonym list, always applied;
 * - synonym (0.85) and hyponym (0.75) from WordNet, for words that match fewer than
 *   `WEAK_MATCHES` documents; hypernym (0.5) for words that match nothing else. The index keeps stems, so
 *   a WordNet concept counts only where the document says it as a noun (concept-forms.ts; the caller
 *   gives the documents' texts as `conceptTexts`).
 * A document's lexical relevance is the IDF-weighted mean of its best quality per term,
 * Σ w_t·q_t / Σ w_t with w_t = ln(1 + N / (1 + n_t)) (Robertson–Spärck Jones IDF); a word the library
 * lacks weighs as much as its most specific word. Relevance 1 = every word matched exactly. A document
 * is a lexical match at relevance ≥ `LEXICAL_MATCH`: all words matched by some class, or, when no
 * document matches every word, most of the query's weight matched (the any-term fallback,
 * hit-lists.ts `capPartialMatches`). Ties keep BM25 order: complete exact matches first, then the
 * all-terms and any-term candidate lists.
 */
import { stemmer } from 'stemmer';
import { nounLemma, type Thesaurus } from './concepts.ts';
import { queryTerms } from './query-words.ts';
import { allOf, allWords, anyOf, inColumn, phrase, prefixPhrase, type LexicalExpr } from './lexical-query.ts';
import { operatorSynonyms, type SynonymRule } from './lexical-words.ts';
import { LexicalHits, type LexicalMatchedBy } from './hit-lists.ts';
import { addMembers, applyGroup, BY_BIT, knownMembers, mergeCandidates, scoreCandidates, termCells } from './lexical-candidates.ts';
import type { LexicalIndex } from './lexical-index.ts';
import { checkCandidates, type ConceptTexts } from './concept-forms.ts';
import { broaderConcepts, CLASS_QUALITY, nearConcepts, typoGroup, type Group, type MatchClass } from './lexical-terms.ts';

export type { LexicalHit, LexicalMatchedBy } from './hit-lists.ts';
export type { LexicalIndex } from './lexical-index.ts';
export { CLASS_QUALITY, expansionOf, type Expansion, type MatchClass } from './lexical-terms.ts';

const MATCHED_BY: Record<MatchClass, LexicalMatchedBy> = {
  exact: 'text',
  prefix: 'text',
  typo: 'typo',
  operator: 'concept',
  synonym: 'concept',
  hyponym: 'concept',
  hypernym: 'concept',
};
/** The classes of groups that come from WordNet: the groups the noun check reads (concept-forms.ts). */
const WORDNET_CLASSES: ReadonlySet<MatchClass> = new Set(['synonym', 'hyponym', 'hypernym']);
/** A word matching fewer documents than this is expanded with WordNet synonyms and hyponyms. */
export const WEAK_MATCHES = 10;
/** Lowest lexical relevance of a match. */
export const LEXICAL_MATCH = 0.5;
/**
 * Quality of the correction of a dictionary word whose own meaning found nothing: below `LEXICAL_MATCH`, so
 * alone it makes a suggestion, not a match. A word the dictionary holds and the library does not is more
 * likely a thing the library lacks than a misspelling: "towel" in a shop that sells a "trowel". The
 * correction is still searched and reported (`corrections`), as a "did you mean".
 */
export const DICTIONARY_TYPO = 0.45;

export interface LexicalOptions {
  /** restrict every expression to one column of the index (exact-field modes) */
  column: string | null;
  /** WordNet expansion (null = off: exact-field modes, or the thesaurus failed to load) */
  thesaurus: Thesaurus | null;
  typos: boolean;
  synonyms: readonly SynonymRule[];
  /** candidates fetched per list */
  depth: number;
  /**
   * The candidates' own texts, for the noun check of WordNet concept matches (concept-forms.ts): a term
   * matched only through a concept keeps that match where the document says the concept word as a noun.
   * Absent: concept matches count as the index found them.
   */
  conceptTexts?: ConceptTexts;
}

export interface LexicalResult {
  /** candidates, best first (matches and non-matches; `relevance ≥ LEXICAL_MATCH` are matches) */
  hits: LexicalHits;
  /** complete exact matches under the filters, and how many of them are in `hits` */
  exactTotal: number;
  exactFetched: number;
  /** `exactTotal` is an estimate (the index stopped counting a very frequent expression) */
  exactEstimated: boolean;
  /** misspelt words and the words searched instead, as written in the library */
  corrections: { from: string; to: string }[];
  /** concept words that found documents */
  expanded: string[];
  /** how many query terms there were (0 = nothing searchable) */
  terms: number;
  /** the query's terms (distinct stems, query order) and the IDF weights the relevance uses (see the module note) */
  termWords: { word: string; stem: string }[];
  weights: number[];
  /** documents of the scope matching each term (any of its groups), and documents of the scope: the weights' counts */
  counts: number[];
  size: number;
  /** a candidate's best quality per term (indexed as `termWords`), or undefined for a seq that is no candidate */
  termQuality(seq: number): Float64Array | undefined;
}

/**
 * Plan and run a lexical query against an index.
 * @returns hits best first with relevance and provenance; `terms` 0 when the query has no searchable word
 */
export async function runLexical(query: string, index: LexicalIndex, o: LexicalOptions, deepest = 0): Promise<LexicalResult> {
  const surface = queryTerms(query);
  const seenStem = new Set<string>();
  const terms = surface
    .map((w) => ({ word: w, stem: stemmer(w) }))
    .filter((t) => (seenStem.has(t.stem) ? false : (seenStem.add(t.stem), true)));
  const empty: LexicalResult = {
    hits: LexicalHits.EMPTY,
    exactTotal: 0,
    exactFetched: 0,
    exactEstimated: false,
    corrections: [],
    expanded: [],
    terms: terms.length,
    termWords: terms,
    // no document matches any term: every count is 0, so every IDF weight is the same
    weights: terms.map(() => 1),
    counts: terms.map(() => 0),
    size: 0,
    termQuality: () => undefined,
  };
  if (terms.length === 0) return empty;

  const groups: Group[] = [];
  const corrections: { from: string; to: string }[] = [];
  const n = terms.length;
  const exactCounts: number[] = [];
  for (const [i, t] of terms.entries()) {
    const exact = phrase(t.word);
    const c = await index.count(inColumn(exact, o.column));
    groups.push({ term: i, cls: 'exact', quality: 1, phrases: [exact], words: [t.word], count: c });
    exactCounts.push(c);
    let found = c;
    const ops = operatorSynonyms(o.synonyms, t.word);
    if (ops.length) {
      const oc = await index.count(inColumn(anyOf(ops.map(phrase)), o.column));
      groups.push({ term: i, cls: 'operator', quality: CLASS_QUALITY.operator, phrases: ops.map(phrase), words: ops, count: oc });
      found += oc;
    }
    const dictionary = o.thesaurus ? nounLemma(o.thesaurus, t.word) !== null : false;
    if (found === 0 && i === n - 1 && !dictionary && t.word.length >= 2) {
      const pre = prefixPhrase(t.word);
      const pc = await index.count(inColumn(pre, o.column));
      if (pc > 0) {
        groups.push({ term: i, cls: 'prefix', quality: CLASS_QUALITY.prefix, phrases: [pre], words: [`${t.word}…`], count: pc });
        found += pc;
      }
    }
    /** the term's typo group, if its spelling is close to the index's words: the word searched instead */
    const correct = async (guess = false): Promise<string | null> => {
      const typo = o.typos ? await typoGroup(index, o.column, i, t) : null;
      if (!typo) return null;
      groups.push(guess ? { ...typo.group, quality: Math.min(typo.group.quality, DICTIONARY_TYPO) } : typo.group);
      corrections.push(typo.correction);
      // a guess finds suggestions only: the word's broader concepts may still find matches
      if (!guess) found += typo.group.count;
      return typo.correction.to;
    };
    const site = o.thesaurus ? { index, column: o.column, thesaurus: o.thesaurus, groups, term: i } : null;
    // A dictionary word's own meaning comes before its spelling: "sweater" finds the jumper, not a
    // "3-seater" sofa one edit away. Its broader words come last, after a correction.
    if (dictionary) {
      if (site && found < WEAK_MATCHES) found += await nearConcepts(site, t.word, 1);
      if (found === 0) await correct(true);
      if (site && found === 0) await broaderConcepts(site, t.word, 1);
      continue;
    }
    const corrected = found === 0 ? await correct() : null;
    // concepts of a corrected word are no better than the correction itself
    if (site && corrected && nounLemma(site.thesaurus, corrected) && found < WEAK_MATCHES) {
      found += await nearConcepts(site, corrected, CLASS_QUALITY.typo);
      if (found === 0) await broaderConcepts(site, corrected, CLASS_QUALITY.typo);
    }
  }

  const termExpr = (i: number): LexicalExpr => anyOf(groups.filter((g) => g.term === i).flatMap((g) => g.phrases));
  const exactAll = inColumn(allWords(terms.map((t) => t.word)), o.column);
  const expanded = groups.some((g) => g.cls !== 'exact');
  const lists: number[][] = [];
  const s1 = await index.search(exactAll, Math.max(o.depth, deepest));
  lists.push(s1.seqs);
  // the other lists only add candidates: their totals are never used, so the index need not count them
  const allTerms = expanded ? (await index.search(inColumn(allOf(terms.map((_, i) => termExpr(i))), o.column), o.depth, false)).seqs : [];
  if (expanded) lists.push(allTerms);
  if (n > 1) lists.push((await index.search(inColumn(anyOf(terms.map((_, i) => termExpr(i))), o.column), o.depth, false)).seqs);
  const c = mergeCandidates(lists, allTerms);
  const m = c.seqs.length;
  if (m === 0) return { ...empty, corrections };

  // Members known without asking the index: a complete exact match holds every exact word, and a
  // document of an all-terms list holds, for each term with one group that matches anything, that
  // group. Only the other candidates are looked up (a narrower rowid range for `within`).
  const cells = termCells(m, n);
  const matching = groups.filter((g) => g.count > 0);
  for (const g of groups) {
    const sole1 = n === 1 && g.cls === 'exact' && !expanded;
    if (g.count === 0 && !sole1) continue;
    let member: Uint8Array | null = null;
    if (!sole1) {
      const sole = matching.filter((h) => h.term === g.term).length === 1;
      const known = knownMembers(c, g.cls === 'exact', sole);
      member = known.member;
      if (known.rest.length > 0) addMembers(c, member, await index.within(inColumn(anyOf(g.phrases), o.column), known.rest));
    }
    applyGroup(cells, g.term, g.quality, BY_BIT[MATCHED_BY[g.cls]], member);
  }
  // the index keeps stems only: a concept word it found may be a verb or adjective of the same stem
  const wordNetGroups = terms.map((_, i) =>
    groups.some((g) => g.term === i && g.cls === 'operator' && g.count > 0)
      ? null
      : groups
          .filter((g) => g.term === i && g.count > 0 && WORDNET_CLASSES.has(g.cls))
          .map((g) => ({ quality: g.quality, words: g.words })),
  );
  if (o.conceptTexts && o.thesaurus && wordNetGroups.some((g) => g && g.length > 0))
    await checkCandidates(c.seqs, cells, wordNetGroups, o.thesaurus, o.conceptTexts);
  const size = await index.size();
  // A word's count is that of the documents holding any of its groups: a group's own when it is the
  // only one that matches anything, else asked of the index.
  const counts: number[] = [];
  for (let i = 0; i < n; i++) {
    const found = groups.filter((g) => g.term === i && g.count > 0);
    if (found.length <= 1) counts.push(found[0]?.count ?? 0);
    else
      counts.push(
        await index.countAny(
          found.map((g) => inColumn(anyOf(g.phrases), o.column)),
          inColumn(termExpr(i), o.column),
        ),
      );
  }
  // A word the library lacks weighs as much as the most specific word it has: half the words, matched
  // exactly, is the least a partial match needs.
  const idf = counts.map((c) => Math.log(1 + size / (1 + c)));
  const present = idf.filter((_, i) => counts[i]! > 0);
  const weights = idf.map((w, i) => (counts[i]! > 0 || present.length === 0 ? w : Math.max(...present)));
  const groupsOf = terms.map((_, i) => groups.filter((g) => g.term === i).map((g) => ({ quality: g.quality, kind: MATCHED_BY[g.cls] })));
  const hits = scoreCandidates(c, cells, weights, groupsOf, LEXICAL_MATCH);
  const usedConcepts = groups.filter((g) => g.cls !== 'exact' && g.cls !== 'typo' && g.cls !== 'prefix');
  const termQuality = (seq: number): Float64Array | undefined => {
    const j = c.at.get(seq);
    return j < 0 ? undefined : cells.quality.slice(j * n, j * n + n);
  };
  return {
    termWords: terms,
    weights,
    counts,
    size,
    termQuality,
    hits,
    exactTotal: s1.total,
    exactFetched: s1.seqs.length,
    exactEstimated: s1.estimated ?? false,
    corrections,
    expanded: usedConcepts.flatMap((g) => g.words).slice(0, 20),
    terms: n,
  };
}
