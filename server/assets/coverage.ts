import { acceptanceScore } from '../domain/search/calibration.ts';
import type { WordNulls } from '../domain/search/word-null.ts';
import type { Scope } from '../domain/scope.ts';
import {
  assetFacts,
  colourWeight,
  coverage,
  isColourWord,
  measuredName,
  namesOneOf,
  shownColours,
  softTerms,
  type Coverage,
  type CoverageDoc,
  type CoverageTerm,
  type WordNull,
} from '../domain/search/coverage.ts';
import type { ConceptTexts } from '../domain/search/concept-forms.ts';
import { appendMatchedBy, belowMatch, capPartialMatches, LexicalHits, unpackMatchedBy } from '../domain/search/hit-lists.ts';
import { LEXICAL_MATCH, type LexicalResult } from '../domain/search/lexical.ts';
import { stableDescending } from '../domain/search/stable-order.ts';
import { wordMemoOf, type WordMemo } from '../domain/search/word-memo.ts';
import type { LibraryDeps } from './deps.ts';

/** A scope's word space (assets/search.ts `AssetVectorSearch.words`). */
export interface WordSpace {
  /** L2-normalised vectors of the words the embedder knows (unknown words absent) */
  vectorsOf(words: string[]): Promise<ReadonlyMap<string, Float32Array>>;
  /** the null of a word's best match among a document's words (word-null.ts); null when too few null pairs: no embedding matches */
  null: WordNulls | null;
  /** family-wise false-match rate of the scope's acceptance tests */
  alpha: number;
  /** share of sampled documents with each measured colour, and the scope's document count */
  colourShare: ReadonlyMap<string, number>;
  items: number;
}

/**
 * Candidates scored for coverage: the best this many of the lexical candidates and of the vector hits each.
 * Twice the largest page (`limit` ≤ 50). Coverage costs the same per candidate (its row, words and word
 * vectors), so the depth sets its price: with 200 of each, hybrid `all` at 100k assets took 2.6 times as long
 * as without coverage (`npm run bench vectors`).
 */
export const COVERAGE_DEPTH = 100;

/** The query's text side after coverage, and which documents a meaning match may stand on. */
export interface Covered {
  /** lexical candidates with relevance raised to their coverage, and candidates only coverage found; best first */
  hits: LexicalHits;
  /**
   * Whether a document the text embedding accepts is corroborated: some query term is covered by its words,
   * a concept no broader than the term or its measured colours (`Coverage.grounded`; not by a word embedding
   * alone: that reads the same word vectors as the document's meaning, so it is no second signal), and no
   * colour word of the query is contradicted by its measured colours (it has measured colours, none of them
   * the word's, and its text does not say it).
   */
  agrees(seq: number): boolean;
}

/**
 * The texts of assets the planner's noun check of WordNet concepts reads (domain/search/concept-forms.ts): the
 * words of the name, alt text, tags, machine tags and OCR text.
 * @throws what the asset store throws
 */
export function assetTexts(deps: Pick<LibraryDeps, 'assets'>, scope: Scope): ConceptTexts {
  return async (seqs) =>
    new Map(
      (await deps.assets.bySeqs(scope, [...seqs])).map((r) => [
        r.seq,
        [r.name_words, r.alt_text, r.tags.join(' '), r.auto_tags.join(' '), r.ocr_text],
      ]),
    );
}

/**
 * The standard score of the text embedding under which a match that WordNet concepts alone make is read as
 * another sense of the word: the null's centre, as near the query as the median unrelated document.
 * "lawyer" reaches a plot's axis label "DA" (a district attorney) and "soldier" a beer label's "weekend
 * warrior"; such a document is, as a whole, no nearer the query than unrelated ones, while a kind of the
 * thing asked for ("flowers" for anemones, "drink" for a beer) is. A bar, not a test: a different sense that
 * shares the topic ("computer" for a paper notebook) passes it.
 */
export const SENSE_SCORE = 0;

/**
 * Whether word embeddings alone carry a document to a match and the text embedding does not accept it.
 * @param z the document's text-embedding standard score (−∞ when it is not among the hits), `accept` the score a match needs
 */
function unbacked(c: Coverage, z: number, accept: number): boolean {
  return c.withoutEmbeddings < LEXICAL_MATCH && !(z >= accept);
}

/**
 * Whether WordNet concepts alone match a document (its `matched_by` code `by` holds concepts but neither the
 * query's own words nor their correction, and no measured colour or own word covers a term) and its text
 * embedding is no nearer the query than `SENSE_SCORE`.
 */
function offSense(c: Coverage, doc: CoverageDoc, by: number, z: number): boolean {
  const kinds = unpackMatchedBy(by);
  const conceptOnly = kinds.includes('concept') && !kinds.includes('text') && !kinds.includes('typo');
  return conceptOnly && !c.colour && doc.stems.size === 0 && z < SENSE_SCORE;
}

/** The text-embedding side of a query: its hits, nearest first, with standard scores, and the score a match needs. */
export interface MeaningHits {
  hits: readonly { seq: number; z: number | null }[];
  accept: number;
}

/**
 * Coverage of a query by its candidate assets (domain/search/coverage.ts), for mode `all`: the best lexical
 * candidates and vector hits (up to `COVERAGE_DEPTH` of each) are scored by how much of the query their
 * words (the planner's matches, and embeddings of their descriptive words) and measured colours cover, and
 * that coverage is their text-side relevance. A candidate covering at least half the query's weight is a
 * text-side match (a descriptive query whose words the alt text holds only as synonyms, related words or
 * colours; a colour word weighs by how many pictures show the colour, so a flower of another colour no
 * longer half-matches "pink flower"), unless its measured colours contradict a colour word of the query
 * (then it stays below every match: "yellow flowers" matches no flower measured pink), or word embeddings
 * alone carry it to half and the text embedding does not accept it (then it is a suggestion: "guitar" is
 * close to the "rock" of a limestone landscape, whose meaning as a whole is not significantly near
 * "guitar"; two views of the same word vectors must agree where neither has the document's own words
 * behind it), or WordNet concepts alone make it and its text embedding is no nearer the query than the null's
 * centre (`SENSE_SCORE`: another sense of the word); the rest tell the
 * fusion whether a meaning match is corroborated. The planner has already checked its WordNet concept matches
 * against the candidates' texts (`assetTexts`; concept-forms.ts: "waves" reaches
 * "ripple", which "Wind-rippled" is not).
 * @param semantic the text-embedding hits and their acceptance score (null: no text embedding)
 * @param words the scope's word space (null: words and measured colours only)
 * @throws what the asset store or the embedder throws
 */
export async function coverQuery(
  deps: Pick<LibraryDeps, 'assets' | 'thesaurus'>,
  scope: Scope,
  lexical: LexicalResult,
  semantic: MeaningHits | null,
  words: WordSpace | null,
): Promise<Covered> {
  const h = lexical.hits;
  // A candidate the planner matched on every term with quality 1 is left out: coverage only raises a term's
  // quality, at most to 1, so it would score it 1, complete and grounded, as the planner did, whatever the
  // terms' weights (colour words included), and no row or word of it is needed.
  const whole = (seq: number): boolean => lexical.termQuality(seq)?.every((q) => q >= 1) ?? false;
  const seqs = [
    ...new Set([...h.seq.subarray(0, COVERAGE_DEPTH), ...(semantic?.hits ?? []).slice(0, COVERAGE_DEPTH).map((v) => v.seq)]),
  ].filter((seq) => !whole(seq));
  if (seqs.length === 0 || lexical.termWords.length === 0) return { hits: h, agrees: (seq) => whole(seq) };

  const rows = await deps.assets.bySeqs(scope, seqs);
  const thesaurus = await deps.thesaurus();
  const memo = wordMemoOf(thesaurus);
  const facts = new Map(rows.map((r) => [r.seq, assetFacts(r, thesaurus ? memo.broader : null)]));
  const stems = saidStems(facts, memo, lexical);
  const { terms, vectors, wordNull } = await queryTerms(lexical, facts, stems, memo, words);
  const byOf = new Map<number, number>();
  for (let i = 0; i < h.length; i++) byOf.set(h.seq[i]!, h.by[i]!);
  const meaningScore = new Map((semantic?.hits ?? []).map((v) => [v.seq, v.z ?? -Infinity]));
  // the query has a text vector and the scope a null: every document down to the suggestion floor is scored
  const measured = (semantic?.hits ?? []).some((v) => v.z !== null);
  const scored = new Map<number, Scored>();
  const queryWords = lexical.termWords.map((t) => t.word);
  for (const seq of seqs) {
    const f = facts.get(seq);
    if (!f) continue;
    const shown = shownColours(f.colours, queryWords);
    const doc: CoverageDoc = {
      lexical: lexical.termQuality(seq),
      stems: stems.get(seq)!,
      words: f.words.flatMap((w) => (vectors.has(w) ? [{ word: w, vector: vectors.get(w)! }] : [])),
      colours: shown,
    };
    const c = coverage(terms, doc, wordNull);
    // a colour word the measurement contradicts: measured colours known, not this one, and no text says it
    const contradicted = terms.some(
      (t, i) => t.colour && shown.size > 0 && !shown.has(measuredName(t.word)) && (doc.lexical?.[i] ?? 0) < 1,
    );
    const z = meaningScore.get(seq) ?? -Infinity;
    const below = contradicted || unbacked(c, z, semantic?.accept ?? Infinity) || (measured && offSense(c, doc, byOf.get(seq) ?? 0, z));
    // a contradicted colour word is a word the picture is known to fail, not one its text leaves unsaid: the
    // document is no text-side match, however much of the rest of the query it covers; nor is it in the other two cases
    const relevance = below ? belowMatch(c.relevance, LEXICAL_MATCH) : c.relevance;
    scored.set(seq, { ...c, relevance, agrees: c.grounded && !contradicted });
  }
  return { hits: merge(h, scored), agrees: (seq) => scored.get(seq)?.agrees ?? whole(seq) };
}

/** A scored candidate: its coverage, relevance kept below a match where a rule says so, and whether it corroborates a meaning match. */
type Scored = Coverage & { agrees: boolean };

/** What coverage reads of a candidate (domain/search/coverage.ts `assetFacts`). */
type AssetFacts = ReturnType<typeof assetFacts>;

/**
 * The query's stems each candidate says among its own words (its name's broader words included, which the
 * lexical index lacks); only the query's stems are ever looked up.
 */
function saidStems(facts: ReadonlyMap<number, AssetFacts>, memo: WordMemo, lexical: LexicalResult): Map<number, Set<string>> {
  const queryStems = new Set(lexical.termWords.map((t) => t.stem));
  const stems = new Map<number, Set<string>>();
  for (const [seq, f] of facts) {
    const said = new Set<string>();
    for (const w of [...f.words, ...f.broader]) {
      const stem = memo.stem(w);
      if (queryStems.has(stem)) said.add(stem);
    }
    stems.set(seq, said);
  }
  return stems;
}

/**
 * The query's terms as coverage scores them (weights, colour words, word vectors, incompatible alternatives),
 * the word vectors of the terms and the candidates' words, and the word null's family-wise acceptance.
 * @throws what the word space throws
 */
async function queryTerms(
  lexical: LexicalResult,
  facts: ReadonlyMap<number, AssetFacts>,
  stems: ReadonlyMap<number, ReadonlySet<string>>,
  memo: WordMemo,
  words: WordSpace | null,
): Promise<{ terms: CoverageTerm[]; vectors: ReadonlyMap<string, Float32Array>; wordNull: WordNull | null }> {
  const colours = lexical.termWords.map((t) => isColourWord(t.word));
  // a term some candidate says names something the library holds: counted as held, like a word the planner found
  const held = lexical.termWords.map((t, i) => lexical.counts[i]! > 0 || [...stems.values()].some((s) => s.has(t.stem)));
  const soft = softTerms(colours.map((colour, i) => ({ count: held[i] ? 1 : 0, colour })));
  // word vectors and incompatible alternatives serve embedding matches only: none when no term may have one
  const embedding = words?.null != null && soft.some(Boolean);
  const vocabulary = embedding
    ? [...new Set([...lexical.termWords.map((t) => t.word), ...[...facts.values()].flatMap((f) => f.words)])]
    : [];
  const vectors = embedding ? await words.vectorsOf(vocabulary) : new Map<string, Float32Array>();
  const terms: CoverageTerm[] = lexical.termWords.map((t, i) => {
    const colour = colours[i]!;
    const w = lexical.weights[i]!;
    const siblings = embedding && soft[i] ? memo.siblings(t.word) : null;
    return {
      word: t.word,
      stem: t.stem,
      weight: colour
        ? colourWeight({
            plannerWeight: w,
            textCount: lexical.counts[i]!,
            share: words?.colourShare.get(measuredName(t.word)) ?? 0,
            size: lexical.size,
          })
        : w,
      colour,
      vector: soft[i] ? (vectors.get(t.word) ?? null) : null,
      ...(siblings?.size ? { incompatible: new Set(vocabulary.filter((v) => namesOneOf(v, memo.lemma(v), siblings))) } : {}),
    };
  });
  // one family of tests per query: each term's word match against each of the scope's documents
  // (Bonferroni over terms × documents, as calibration.ts does over documents), so a query of several
  // words about none of the documents finds no word match as often as a one-word query does
  const tested = soft.filter(Boolean).length;
  const wordNull: WordNull | null = words?.null
    ? { nulls: words.null, accept: acceptanceScore(words.items * Math.max(1, tested), words.alpha) }
    : null;
  return { terms, vectors, wordNull };
}

/** Lexical hits with each scored candidate's relevance raised to its coverage (and the kinds that did it), candidates only coverage found appended; best first, ties in the old order. */
function merge(
  h: LexicalHits,
  scored: ReadonlyMap<number, { relevance: number; complete: boolean; meaning: boolean; colour: boolean }>,
): LexicalHits {
  const listed = new Set(h.seq);
  const extra = [...scored.keys()].filter((seq) => !listed.has(seq) && scored.get(seq)!.relevance > 0);
  const n = h.length + extra.length;
  const seq = new Float64Array(n);
  const relevance = new Float64Array(n);
  const by = new Uint16Array(n);
  const complete = new Uint8Array(n);
  for (let j = 0; j < n; j++) {
    const s = j < h.length ? h.seq[j]! : extra[j - h.length]!;
    const c = scored.get(s);
    let r = j < h.length ? h.relevance[j]! : 0;
    let code = j < h.length ? h.by[j]! : 0;
    let all = j < h.length ? h.complete[j]! : 0;
    // coverage holds the planner's qualities per term: it replaces the planner's relevance (they differ by
    // the classes coverage adds and by a colour term's weight)
    if (c) {
      if (c.meaning && c.relevance > r) code = appendMatchedBy(code, 'meaning');
      if (c.colour) code = appendMatchedBy(code, 'visual');
      r = c.relevance;
      all = c.complete ? 1 : 0;
    }
    seq[j] = s;
    relevance[j] = r;
    by[j] = code;
    complete[j] = all;
  }
  capPartialMatches(relevance, complete, LEXICAL_MATCH);
  const order = stableDescending(relevance);
  const out = new LexicalHits(new Float64Array(n), new Float64Array(n), new Uint16Array(n), new Uint8Array(n));
  for (let i = 0; i < n; i++) {
    const j = order[i]!;
    out.seq[i] = seq[j]!;
    out.relevance[i] = relevance[j]!;
    out.by[i] = by[j]!;
    out.complete[i] = complete[j]!;
  }
  return out;
}
