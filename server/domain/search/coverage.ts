/**
 * Coverage of a query by a document's own words and measured facts, and the agreement of a product's
 * labels with a query (pure).
 *
 * Why. A document embedding's similarity to a query says that the two are about related things, not
 * that the document is what the query asks for: the static embedder rates "leather jacket" close to a
 * sofa and "ski slope" close to sand dunes. So in the fused modes a meaning-only hit must be corroborated
 * before it counts as a match (issue 33): a product by its type, tags or collections (`labelsAgree`), an
 * asset by covering most of the query with its own words or measured colours (`coverage`).
 *
 * Coverage extends the lexical planner's relevance (domain/search/lexical.ts: Σ w_t·q_t / Σ w_t over the
 * query's terms, IDF weights w_t) with two more ways a term can be matched:
 * - a word of the document's descriptive text (name words, alt text, tags) whose embedding is significantly
 *   close to the term's: the cosine of the term's vector and its nearest document word, as a standard
 *   score under the null distribution of that same statistic for unrelated (probe word, document) pairs
 *   of the scope, for a document of as many words (word-null.ts; the method of calibration.ts), accepted at
 *   the family-wise level of calibration.ts (Bonferroni over the query's terms × the documents), quality
 *   `semanticRelevance` (0.5 at the acceptance score, at most SEMANTIC_MAX). This is soft term matching
 *   (Kusner et al., "From word embeddings to document distances", ICML 2015, match words by embedding
 *   distance), with a calibrated threshold in place of a fixed one;
 * - a colour word (one of the names enrichment measures, domain/media/colour.ts): the asset's measured
 *   dominant colours (its automatic colour tags, share ≥ 15%), quality `COLOUR_QUALITY`. Colour words
 *   are matched only by the words or the measurement, never by embeddings (every colour word is close to
 *   every other in a word space), and colour words of a document take no part in embedding matches.
 * Word embeddings place a word's incompatible alternatives close to it ("winter" and "spring", "beer" and
 * "wine": distributional similarity does not tell them apart). Co-hyponyms, words under the same
 * hypernym in WordNet, are such alternatives (Cruse, "Lexical Semantics", 1986, on co-hyponyms as
 * incompatibles), so a document word that is a co-hyponym of a query term is never its embedding match
 * (`coHyponyms`).
 * Soft matching bridges a vocabulary gap (Furnas et al., "The vocabulary problem in human-system
 * communication", CACM 1987): a term no document of the scope says, by itself or a WordNet concept of it,
 * is matched by related words. A term the scope's text already holds names something the library has, so
 * a document saying only a related word ("fir" or "anemone" for "cactus", "rocks" for "dunes") shows a
 * different thing; its embedding match is left out, except in a query of `DESCRIPTIVE_TERMS` or more
 * content words, where a document must cover most of several words at once to match and a related word is
 * one piece of evidence among others (`softTerms`).
 * A document covering at least `LEXICAL_MATCH` (half the query's weight, as the planner's any-term rule)
 * is a match. One that word embeddings alone carry there (`withoutEmbeddings` below it) is a match only
 * when the text embedding accepts the whole document too (assets/coverage.ts): one related word ("rock"
 * for "guitar", "flight" for "airplane") is relatedness, not the thing asked for.
 */
import { stemmer } from 'stemmer';
import { semanticRelevance } from './calibration.ts';
import { MARKER_TAGS } from '../media/alt-text.ts';
import { COLOUR_NAMES, MONOCHROME } from '../media/colour.ts';
import { chooseSenses, nounLemma, type Thesaurus } from './concepts.ts';
import { STOP_WORDS } from './query-words.ts';
import { CLASS_QUALITY, expansionOf } from './lexical.ts';
import { operatorSynonyms, words, type SynonymRule } from './lexical-words.ts';
import { bestCosine, wordScore, type WordNulls } from './word-null.ts';

/**
 * Quality of a colour term matched by the measured colours: a measured colour is a fact of the whole
 * picture, not necessarily of the thing the other words name, so it counts as a WordNet synonym does
 * (CLASS_QUALITY.synonym), below the word itself; set a priori, not fitted.
 */
export const COLOUR_QUALITY = 0.85;

/**
 * Least quality of a term's match, apart from word embeddings, that grounds a document (`Coverage.grounded`):
 * a narrower word's (CLASS_QUALITY.hyponym). A broader word alone (a hypernym: "ridge" for "dunes", "water"
 * for "lake") says the document's thing belongs to a class the term's thing is one kind of, too weak to back
 * an embedding's guess: most ridges are no dunes.
 */
export const GROUNDING = CLASS_QUALITY.hyponym;

/** A query term as coverage scores it. */
export interface CoverageTerm {
  word: string;
  stem: string;
  /** the planner's IDF weight */
  weight: number;
  /** a colour word: matched by text or measured colours only */
  colour: boolean;
  /** the term's word vector (null: unknown to the embedder, or a colour word) */
  vector: Float32Array | null;
  /** document words that name an incompatible alternative of the term (`coHyponyms`): never an embedding match */
  incompatible?: ReadonlySet<string>;
}

/** What coverage knows of one document. */
export interface CoverageDoc {
  /** the planner's best quality per term (undefined: the document is no lexical candidate) */
  lexical?: Float64Array | undefined;
  /** stems of the document's descriptive words (only the query terms' are looked up: those are enough) */
  stems: ReadonlySet<string>;
  /** its descriptive words that are no colour words, with their vectors (L2-normalised; words the embedder lacks left out) */
  words: readonly { word: string; vector: Float32Array }[];
  /** measured dominant colours (names) */
  colours: ReadonlySet<string>;
}

/** The calibrated word space: the null of the best-word cosine (word-null.ts) and the standard score a term needs. */
export interface WordNull {
  nulls: WordNulls;
  accept: number;
}

/** A document's coverage of the query. */
export interface Coverage {
  /** Σ w_t·q_t / Σ w_t, in [0, 1] */
  relevance: number;
  /** every term matched by some class */
  complete: boolean;
  /** some term's best quality came from a word embedding */
  meaning: boolean;
  /**
   * some term is matched, apart from word embeddings, at least as well as a narrower word matches it
   * (`GROUNDING`): by the document's own words, a synonym, a kind of the thing, a close spelling (the
   * planner's classes, the same stem) or its measured colours
   */
  grounded: boolean;
  /** some term's best quality came from the measured colours */
  colour: boolean;
  /** `relevance` without the word-embedding matches: what the document's words, concepts and colours cover */
  withoutEmbeddings: number;
}

/**
 * The coverage of the query `terms` by one document (see the module note).
 * @param words the calibrated word space, or null (no embedder or too few null pairs: no embedding matches)
 */
export function coverage(terms: readonly CoverageTerm[], doc: CoverageDoc, words: WordNull | null): Coverage {
  let sum = 0;
  let plain = 0;
  let wsum = 0;
  let complete = true;
  let meaning = false;
  let colour = false;
  let grounded = false;
  terms.forEach((t, i) => {
    const lex = doc.lexical?.[i] ?? 0;
    // a colour word counts in the text only as itself: WordNet's noun senses ("pink", a flower) are not the colour
    let q = Math.max(t.colour ? (lex >= 1 ? 1 : 0) : lex, doc.stems.has(t.stem) ? 1 : 0);
    if (t.colour && doc.colours.has(measuredName(t.word)) && COLOUR_QUALITY > q) {
      q = COLOUR_QUALITY;
      colour = true;
    }
    if (q >= GROUNDING) grounded = true;
    plain += t.weight * q;
    if (!t.colour && words && t.vector && q < 1 && doc.words.length > 0) {
      const near = doc.words.filter((w) => !t.incompatible?.has(w.word)).map((w) => w.vector);
      const z = near.length > 0 ? wordScore(words.nulls, near.length, bestCosine(t.vector, near)) : -Infinity;
      const e = z >= words.accept ? semanticRelevance(z, words.accept) : 0;
      if (e > q) {
        q = e;
        meaning = true;
      }
    }
    if (q <= 0) complete = false;
    sum += t.weight * q;
    wsum += t.weight;
  });
  return {
    relevance: wsum > 0 ? Math.min(1, sum / wsum) : 0,
    complete: complete && terms.length > 0,
    meaning,
    colour,
    grounded,
    withoutEmbeddings: wsum > 0 ? Math.min(1, plain / wsum) : 0,
  };
}

/** Content words (no colour words) from which a query is descriptive: every term may be matched by related words. */
export const DESCRIPTIVE_TERMS = 3;

/**
 * Which query terms may be matched by word embeddings (see the module note): those no document of the scope
 * matches through the planner (`count` 0), or all but colour words in a descriptive query.
 * @param terms per term: the planner's document count in the scope and whether it is a colour word
 * @returns one flag per term, in order
 */
export function softTerms(terms: readonly { count: number; colour: boolean }[]): boolean[] {
  const descriptive = terms.filter((t) => !t.colour).length >= DESCRIPTIVE_TERMS;
  return terms.map((t) => !t.colour && (descriptive || t.count === 0));
}

/**
 * The nouns that are incompatible alternatives of a word: the lemmas of the other direct hyponyms of its
 * chosen senses' hypernyms (its co-hyponyms), in the senses those lemmas are mostly read in, without the
 * word's own synonyms. "winter" → spring, summer, autumn, … (all under "season").
 * @returns an empty set when the thesaurus does not know the word
 */
export function coHyponyms(t: Thesaurus, word: string): Set<string> {
  const lemma = nounLemma(t, word);
  if (!lemma) return new Set();
  const own = new Set(chooseSenses(t.senses(lemma)));
  const synonyms = new Set([...own].flatMap((s) => t.lemmasOf(s)));
  const out = new Set<string>();
  for (const s of own)
    for (const h of t.hypernymsOf(s))
      for (const sibling of t.hyponymsOf(h)) {
        if (own.has(sibling)) continue;
        for (const l of t.lemmasOf(sibling))
          if (!synonyms.has(l) && !l.includes(' ') && chooseSenses(t.senses(l)).includes(sibling)) out.add(l);
      }
  return out;
}

/**
 * Whether a document word names one of `incompatible` (as written or as its noun lemma).
 * @param lemma the word's noun lemma (`nounLemma`), null when the thesaurus has none
 */
export function namesOneOf(word: string, lemma: string | null, incompatible: ReadonlySet<string>): boolean {
  return incompatible.has(word) || (lemma !== null && incompatible.has(lemma));
}

/** Fewest letters of a descriptive word (shorter tokens are initials, units and noise). */
const MIN_WORD = 3;

/**
 * The descriptive words of a text: distinct lower-case letter runs of at least three letters, no stop
 * words, no words of `exclude` (the colour names), in order.
 */
export function descriptiveWords(text: string, stop: ReadonlySet<string>, exclude: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const w of text.toLowerCase().match(/\p{L}+/gu) ?? []) if (w.length >= MIN_WORD && !stop.has(w) && !exclude.has(w)) out.add(w);
  return [...out];
}

/**
 * The texts a query term stands for, as space-joined Porter stems: the word, the planner's correction of
 * it, the scope's operator synonyms, and its WordNet synonyms, hyponyms and close hypernyms
 * (domain/search/concepts.ts, the planner's expansion).
 */
export function termConcepts(
  t: Thesaurus | null,
  word: string,
  o: { correction?: string | undefined; synonyms?: readonly SynonymRule[] },
): Set<string> {
  const out = new Set<string>();
  const add = (text: string) => {
    const ws = words(text).map((w) => stemmer(w));
    if (ws.length > 0) out.add(ws.join(' '));
  };
  const heads = [word, ...(o.correction ? [o.correction] : [])];
  for (const w of heads) {
    add(w);
    for (const s of operatorSynonyms(o.synonyms ?? [], w)) add(s);
    if (t) for (const stems of expansionOf(t, w).stems.values()) if (stems.length > 0) out.add(stems.join(' '));
  }
  return out;
}

/**
 * Whether a product's labels (its type, each tag, each collection) agree with the query: some label holds,
 * as a run of whole words (Porter stems), one of the texts some query term stands for (`termConcepts`).
 * "couch" agrees with the tag "Sofa" (a synonym), "furniture" with "Chair" (a hyponym), "gardener" with the
 * collection "home-and-garden" (the same stem); "leather jacket" with nothing a sofa is labelled with.
 * @param concepts per query term, from `termConcepts`
 * @param labels the product's type, tags and collection handles or titles (empty ones are skipped)
 */
export function labelsAgree(concepts: readonly ReadonlySet<string>[], labels: readonly string[]): boolean {
  for (const label of labels) {
    const stems = words(label).map((w) => stemmer(w));
    for (let i = 0; i < stems.length; i++)
      for (let j = i + 1; j <= stems.length; j++) {
        const run = stems.slice(i, j).join(' ');
        if (concepts.some((c) => c.has(run))) return true;
      }
  }
  return false;
}

/**
 * What coverage reads of an asset row:
 * - `words`: the descriptive words of its name words, alt text, user tags and the keywords of its file's own
 *   metadata (enrichment adds them to the automatic tags of an asset without user tags, and its text vector
 *   holds them too); colour names and the measurement markers (`MARKER_TAGS`) left out, as colours are
 *   judged by the measurement;
 * - `broader`: for an asset that has nothing but a file name, the name's broader WordNet words, as its text
 *   vector has them;
 * - `colours`: its measured dominant colours (the colour names among its automatic tags, which enrichment
 *   writes for colours covering ≥ 15% of the picture).
 * The broader words name classes the asset's thing belongs to ("falcon" → bird, prey; "springs" → season,
 * time): a query term that says one matches it, but a word merely related to a class says nothing about the
 * thing ("dog" is close to "bird", "basketball" to "season"), so they are never embedding matches (`words`
 * holds the asset's own words only).
 * @param row the asset row's text columns
 * @param broader the broader words of the name words (`broaderWords` over the thesaurus, or its memo in
 *   word-memo.ts); null without a thesaurus
 */
export function assetFacts(
  row: {
    name_words: string | null;
    alt_text: string | null;
    tags: readonly string[];
    auto_tags: readonly string[];
    user_fields: readonly string[];
    purpose: string | null;
  },
  broader: ((names: string[]) => string[]) | null = null,
): {
  /** the asset's own descriptive words */
  words: string[];
  /** the broader words of a name-only asset that are not among its own words */
  broader: string[];
  colours: Set<string>;
} {
  const tags = row.tags;
  // an asset with nothing but a file name is embedded with its name's broader WordNet words
  // (enrichment/service.ts): coverage reads the same words
  const bare = !row.user_fields.includes('alt_text') && tags.length === 0 && !row.purpose;
  const names = (row.name_words ?? '').split(' ').filter(Boolean);
  const more = bare && broader ? broader(names) : [];
  const words = descriptiveWords(
    [row.name_words ?? '', row.alt_text ?? '', tags.join(' '), row.auto_tags.filter((t) => !MARKER_TAGS.has(t)).join(' ')].join(' '),
    STOP_WORDS,
    COLOUR_NAMES,
  );
  const own = new Set(words);
  return {
    words,
    broader: descriptiveWords(more.join(' '), STOP_WORDS, COLOUR_NAMES).filter((w) => !own.has(w)),
    colours: new Set(row.auto_tags.filter((t) => COLOUR_NAMES.has(t) || t === MONOCHROME)),
  };
}

/** Query words for a picture without hue; the measurement is the automatic tag `monochrome`. */
const MONOCHROME_WORDS: ReadonlySet<string> = new Set([MONOCHROME, 'monochromatic', 'grayscale', 'greyscale']);

/** Whether a query word is a colour (or the absence of colour) the enrichment measures. */
export const isColourWord = (word: string): boolean => COLOUR_NAMES.has(word) || MONOCHROME_WORDS.has(word);

/** The measured name a colour word is checked against: the word itself, or `monochrome` for its synonyms. */
export const measuredName = (word: string): string => (MONOCHROME_WORDS.has(word) ? MONOCHROME : word);

/**
 * The measured colours a document shows to a query: its own, plus black and white for a monochrome
 * picture when the query says both ("black and white photo" asks for a picture without hue, whose measured
 * dominant colours are often only greys and black).
 * @param queryWords the query's words (lower case)
 */
export function shownColours(colours: ReadonlySet<string>, queryWords: readonly string[]): ReadonlySet<string> {
  if (!colours.has(MONOCHROME) || !queryWords.includes('black') || !queryWords.includes('white')) return colours;
  return new Set([...colours, 'black', 'white']);
}

/**
 * The IDF weight of a colour term, counting the documents that show the colour: ln(1 + N / (1 + n)) (the
 * planner's formula) with n the larger of the documents whose text says it and the documents measured to
 * have it (`share` of a calibration sample × N). The planner counts only the texts, and a colour no text
 * names would weigh as its "missing word" rule says (as much as the query's most specific word), though the
 * pixels show it is common, or rare.
 * @param plannerWeight the planner's weight, kept when neither count knows the colour
 */
export function colourWeight(o: { plannerWeight: number; textCount: number; share: number; size: number }): number {
  const n = Math.max(o.textCount, Math.round(o.share * o.size));
  return n > 0 && o.size > 0 ? Math.log(1 + o.size / (1 + n)) : o.plannerWeight;
}
