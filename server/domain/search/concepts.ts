/**
 * Concept expansion of a query word over a thesaurus (WordNet 3.1 nouns, loaded by
 * providers/wordnet.ts): synonyms (the other lemmas of the word's synsets), hyponyms (everything
 * below them, so a general word finds the specific things under it) and close hypernyms (one level
 * up). Senses are those a reader most likely means: the first sense, plus any sense whose SemCor
 * tagged count is at least a tenth of the first's (WordNet orders senses by that frequency; see
 * Miller et al., "Using a semantic concordance for sense identification", 1994); when the counts are
 * too small to tell, the first three; of those, a sense that names nothing visible, tagged no more often than
 * a visible one, is dropped (`querySenses`: a picture or a product is a thing). Hyponyms that are parts of
 * a whole (WordNet's part holonyms) are not followed from a sense that is not itself a part: a shirt's pocket
 * is a pouch, but the shirt is no bag. A lemma reached this way (a synonym of a later sense, a hyponym or a
 * hypernym) is kept only when the synset it was reached through is a sense a document's word is read in
 * (`readIn`: as above, but when the counts are too small to tell, the first sense and those that are a
 * one-word synonym's first, "bracelet" as jewellery where "bangle" is; "black" is a
 * hyponym of clothing in one rare sense, but means the colour; a photo's "anemones" are flowers, not the
 * sea anemones "animal" reaches) and the lemma is mainly a noun, so expansion does not drift
 * through rare senses. Nor when its Porter stem, which the index searches, belongs to a more frequent noun
 * of another sense (`stemBelongsElsewhere`): "sports" reaches "boxing", "bicycling" and "singles", whose
 * stems would find a box, a parked bicycle and a single flower.
 * Lemmatisation follows WordNet's morphy detachment rules for nouns
 * (https://wordnet.princeton.edu/documentation/morphy7wn), without its exception lists.
 */

import { stemmer } from 'stemmer';

/** Read access to a noun thesaurus; synsets are opaque ids. */
export interface Thesaurus {
  /** synsets of a lemma (lower case, words separated by spaces) in sense order, with tagged counts */
  senses(lemma: string): { synset: number; tagCount: number }[];
  lemmasOf(synset: number): string[];
  hypernymsOf(synset: number): number[];
  hyponymsOf(synset: number): number[];
  /** whether the synset is a part of some whole (a part holonym: a pocket of a garment) */
  isPart(synset: number): boolean;
  /** whether the lemma is a noun of the thesaurus */
  isWord(lemma: string): boolean;
  /** false for lemmas used more often as an adjective or verb than as a noun ("blue", "float") */
  mainlyNoun(lemma: string): boolean;
  /** the `n` single-word nouns used most often (SemCor), most frequent first */
  frequentNouns(n: number): string[];
  /** the single-word lemmas with at least one tagged sense whose Porter stem is `stem`, in any order */
  taggedWithStem(stem: string): readonly string[];
}

export type ConceptRelation = 'synonym' | 'hyponym' | 'hypernym';

/** A word or phrase related to a query word. */
export interface ConceptWord {
  text: string;
  relation: ConceptRelation;
}

/** Most hyponym lemmas collected per word (breadth first, so the closest are kept). */
export const MAX_HYPONYMS = 20_000;
/** A later sense is used when its tagged count reaches this share of the first sense's … */
const SENSE_SHARE = 0.1;
/** … unless the first sense is tagged fewer times than this (too rare to tell): then the first three are used. */
const RARE_TAGS = 5;

const DETACH: [string, string][] = [
  ['ses', 's'],
  ['xes', 'x'],
  ['zes', 'z'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['ies', 'y'],
  ['s', ''],
];

/**
 * Every noun lemma a word may be read as: itself when it is a lemma, and each base that morphy's detachment
 * rules give, in their order (`shoes` → [`shoes`, `shoe`]: WordNet holds both); [] when the thesaurus knows
 * none.
 */
export function nounLemmas(t: Thesaurus, word: string): string[] {
  const w = word.toLowerCase();
  const out = t.isWord(w) ? [w] : [];
  for (const [suffix, repl] of DETACH) {
    if (w.endsWith(suffix) && w.length > suffix.length + 1) {
      const base = w.slice(0, -suffix.length) + repl;
      if (t.isWord(base) && !out.includes(base)) out.push(base);
    }
  }
  return out;
}

/**
 * The noun lemma of a word by morphy's detachment rules (`flowers` → `flower`, `boxes` → `box`), the
 * word itself when it is a lemma, or null when the thesaurus does not know it.
 */
export function nounLemma(t: Thesaurus, word: string): string | null {
  return nounLemmas(t, word)[0] ?? null;
}

/** The senses of a lemma worth expanding (see the module note). */
export function chooseSenses(senses: { synset: number; tagCount: number }[]): number[] {
  const first = senses[0];
  if (!first) return [];
  if (first.tagCount < RARE_TAGS) return senses.slice(0, 3).map((s) => s.synset);
  const floor = first.tagCount * SENSE_SHARE;
  return senses.filter((s, i) => i === 0 || s.tagCount >= floor).map((s) => s.synset);
}

/**
 * The top synsets of what a picture can show or a shop sell: physical entities (an object, a substance, a
 * living thing, a place) and visual properties (a colour), as against the abstractions (a perception, a field
 * of study, a sum of money, the angle where branches fork). Each is the sense of its lemma directly below
 * "entity" or "property".
 */
function visibleTops(t: Thesaurus): Set<number> {
  const tops = new Set<number>();
  const below = (lemma: string, parent: string): void => {
    const up = new Set(t.senses(parent).map((s) => s.synset));
    const s = t.senses(lemma).find((x) => t.hypernymsOf(x.synset).some((h) => up.has(h)));
    if (s) tops.add(s.synset);
  };
  below('physical entity', 'entity');
  below('visual property', 'property');
  return tops;
}

/** Whether a synset is below one of `tops`, by its hypernyms (instances included). */
function isBelow(t: Thesaurus, synset: number, tops: ReadonlySet<number>): boolean {
  const seen = new Set<number>();
  let frontier = [synset];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const s of frontier) {
      if (tops.has(s)) return true;
      if (seen.has(s)) continue;
      seen.add(s);
      next.push(...t.hypernymsOf(s));
    }
    frontier = next;
  }
  return false;
}

/**
 * The senses a query word is expanded in: `chooseSenses`, without each sense that names nothing visible
 * (an abstraction other than a visual property) and is tagged no more often than a visible sense also
 * chosen. What a picture shows or a shop sells is a thing and its look, so where a word is as often a thing
 * as an idea, the thing is meant: "perfume" is the toiletry, not a pleasant smell (whose synonym "scent" a candle's
 * description says), and "field" a piece of land, not a field of study. A word mostly read as an idea keeps
 * that reading ("spring" the season, beside the device and the fountain), and a colour stays a colour.
 */
export function querySenses(t: Thesaurus, lemma: string): number[] {
  const senses = t.senses(lemma);
  const chosen = new Set(chooseSenses(senses));
  const tops = visibleTops(t);
  const read = senses.filter((s) => chosen.has(s.synset)).map((s) => ({ ...s, visible: isBelow(t, s.synset, tops) }));
  const visible = Math.max(-1, ...read.filter((s) => s.visible).map((s) => s.tagCount));
  return read.filter((s) => s.visible || s.tagCount > visible).map((s) => s.synset);
}

/**
 * Whether a lemma met in a document is read in `synset`. Its readings are `chooseSenses`, except that when
 * its tagged counts are too few to tell, WordNet's first sense (its order is then the lexicographers'
 * judgement of the usual reading) and any later sense that is the first sense of a one-word synonym: that
 * sense is the usual reading of a word, so no rare one. A document's "anemones" are the flowers, not sea
 * anemones (a phrase), its "notebook" is paper, not a notebook computer; its "bracelet" is both a watchband
 * (first) and jewellery (as "bangle" is first).
 */
function readIn(t: Thesaurus, lemma: string, synset: number): boolean {
  const senses = t.senses(lemma);
  const first = senses[0];
  if (!first) return false;
  if (first.synset === synset) return true;
  if (first.tagCount >= RARE_TAGS) return chooseSenses(senses).includes(synset);
  return (
    senses.some((s) => s.synset === synset) &&
    t.lemmasOf(synset).some((l) => l !== lemma && !l.includes(' ') && t.senses(l)[0]?.synset === synset)
  );
}

/** How often a lemma is read as a noun: its tagged senses in all (SemCor). */
function usage(t: Thesaurus, lemma: string): number {
  return t.senses(lemma).reduce((n, s) => n + s.tagCount, 0);
}

/**
 * Whether searching `lemma` (reached through `synset`) by its Porter stem would mostly find another word: a
 * noun with the same stem that is read more often and not in that sense ("box" for "boxing", "bicycle" for
 * "bicycling"). Phrases are searched word by word in order, so they are left alone.
 */
export function stemBelongsElsewhere(t: Thesaurus, lemma: string, synset: number): boolean {
  if (lemma.includes(' ')) return false;
  const own = usage(t, lemma);
  return t.taggedWithStem(stemmer(lemma)).some((k) => k !== lemma && usage(t, k) > own && !chooseSenses(t.senses(k)).includes(synset));
}

/**
 * Synonyms, hyponyms and close hypernyms of a word. The word itself (and its lemma) are left out;
 * a word reached by several relations keeps the closest one (synonym, then hyponym, then hypernym).
 * @returns [] when the thesaurus does not know the word
 */
export function expandConcept(t: Thesaurus, word: string, maxHyponyms = MAX_HYPONYMS): ConceptWord[] {
  const lemma = nounLemma(t, word);
  if (!lemma) return [];
  const senses = querySenses(t, lemma);
  const seen = new Set<string>([word.toLowerCase(), lemma]);
  const out: ConceptWord[] = [];
  /** whether `synset` is one of the senses a reader would take `lemma` in */
  const dominant = (lemma: string, synset: number): boolean => t.mainlyNoun(lemma) && readIn(t, lemma, synset);
  const add = (text: string, relation: ConceptRelation): void => {
    if (seen.has(text)) return;
    seen.add(text);
    out.push({ text, relation });
  };
  // The first sense's other lemmas are synonyms as they stand; a later (rarer) sense's only when that
  // sense is also one the lemma is mostly read in: "raspberry" in its Bronx-cheer sense lists "bird".
  senses.forEach((s, i) => {
    for (const l of t.lemmasOf(s)) if (i === 0 || dominant(l, s)) add(l, 'synonym');
  });
  // Breadth-first over hyponyms (instances included): "animal" reaches "falcon" several levels down. A kind
  // that is a part of some whole, under a word that names no part, is not followed: a document that names it
  // names a part of itself (a shirt's "front pocket" is a pouch, so a bag, but the shirt is no bag). Each
  // frontier synset carries whether the sense it descends from is itself a part ("room" → "kitchen").
  const visited = new Set<number>(senses);
  let frontier = senses.flatMap((s) => t.hyponymsOf(s).map((h) => ({ s: h, part: t.isPart(s) })));
  let hyponyms = 0;
  while (frontier.length > 0 && hyponyms < maxHyponyms) {
    const next: typeof frontier = [];
    for (const { s, part } of frontier) {
      if (visited.has(s)) continue;
      visited.add(s);
      if (!part && t.isPart(s)) continue;
      for (const l of t.lemmasOf(s)) {
        if (hyponyms >= maxHyponyms) break;
        if (!dominant(l, s) || stemBelongsElsewhere(t, l, s)) continue;
        const before = out.length;
        add(l, 'hyponym');
        hyponyms += out.length - before;
      }
      next.push(...t.hyponymsOf(s).map((h) => ({ s: h, part })));
    }
    frontier = next;
  }
  for (const s of senses)
    for (const h of t.hypernymsOf(s))
      for (const l of t.lemmasOf(h)) if (dominant(l, h) && !stemBelongsElsewhere(t, l, h)) add(l, 'hypernym');
  return out;
}

/**
 * Broader words for a text's nouns: for each noun (two-word collocations first, "prairie falcon"),
 * the lemmas of its first sense's hypernyms up to `levels` up ("falcon", "hawk"). Used to give an
 * embedding of a bare file name ("prairie_falcon.jpg") the general words queries use ("bird").
 * @param words lower-case words in order
 * @param lemmaOf `nounLemma` or a memo of it; asked for single words and for two-word pairs
 * @param above `hypernymLemmas` or a memo of it (coverage keeps both across queries)
 */
export function broaderWords(
  t: Thesaurus,
  words: string[],
  levels = 2,
  lemmaOf: (word: string) => string | null = (w) => nounLemma(t, w),
  above: (lemma: string) => readonly string[] = (l) => hypernymLemmas(t, l, levels),
): string[] {
  const out = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const pair = i + 1 < words.length ? lemmaOf(`${words[i]} ${words[i + 1]}`) : null;
    let lemma = pair ?? lemmaOf(words[i]!);
    if (pair) i++;
    if (!lemma) {
      // a word the thesaurus lacks may be a compound ending in one it has ("notocactus"): the head is
      // what it is a kind of, so it is a broader word itself
      lemma = headNoun(words[i]!, lemmaOf);
      if (lemma && t.mainlyNoun(lemma)) out.add(lemma);
    }
    if (!lemma || !t.mainlyNoun(lemma)) continue;
    for (const l of above(lemma)) out.add(l);
  }
  return [...out];
}

/**
 * The head nouns of the compound words among a name's words (`headNoun`), in order, without repeats:
 * what the name says its subject is a kind of when the thesaurus lacks the word itself
 * ("notocactus minimus" → ["cactus"]).
 * @param words lower-case words in order
 */
export function compoundHeads(t: Thesaurus, words: string[]): string[] {
  const lemmaOf = (w: string): string | null => nounLemma(t, w);
  const out = new Set<string>();
  for (const w of words) {
    if (lemmaOf(w)) continue;
    const head = headNoun(w, lemmaOf);
    if (head && t.mainlyNoun(head)) out.add(head);
  }
  return [...out];
}

/** Shortest head a compound's word may end in, letters (shorter ones end too many words by chance: "ama-zing"). */
const MIN_HEAD = 5;
/** Shortest modifier before the head, letters. */
const MIN_MODIFIER = 3;

/**
 * The head noun of a closed compound the thesaurus lacks ("notocactus" → "cactus", "sunsetbeach" →
 * "beach"): its longest ending of at least `MIN_HEAD` letters that is a noun, after at least
 * `MIN_MODIFIER` letters. English and Latin compounds put the head last (right-hand head rule; Williams,
 * "On the notions 'lexically related' and 'head of a word'", Linguistic Inquiry 12, 1981), so the whole
 * names a kind of the head. Only for words the thesaurus lacks: a known word is never split.
 * @param lemmaOf `nounLemma` or a memo of it
 * @returns the head's lemma, or null when no ending is a noun
 */
export function headNoun(word: string, lemmaOf: (word: string) => string | null): string | null {
  if (!/^\p{Ll}+$/u.test(word)) return null;
  for (let k = MIN_MODIFIER; word.length - k >= MIN_HEAD; k++) {
    const head = lemmaOf(word.slice(k));
    if (head) return head;
  }
  return null;
}

/** The first lemmas of the hypernyms of a lemma's first sense, up to `levels` up, depth first. */
export function hypernymLemmas(t: Thesaurus, lemma: string, levels = 2): string[] {
  const out: string[] = [];
  const add = (synset: number, depth: number): void => {
    for (const h of t.hypernymsOf(synset)) {
      const first = t.lemmasOf(h)[0];
      if (first && !out.includes(first)) out.push(first);
      if (depth + 1 < levels) add(h, depth + 1);
    }
  };
  const sense = t.senses(lemma)[0];
  if (sense) add(sense.synset, 0);
  return out;
}
