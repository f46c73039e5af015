/**
 * Per-word derivations that coverage (server/assets/coverage.ts) asks for on every candidate of every query,
 * remembered across queries per thesaurus: Porter stems, noun lemmas, co-hyponyms and the broader WordNet words
 * of a name.
 *
 * Why. A query scores up to 2 × COVERAGE_DEPTH documents whose words recur from query to query, and deriving
 * them again was most of coverage's cost (`npm run bench vectors`, hybrid `all` at 100k assets). The
 * derivations are pure functions of the word and the thesaurus, so a bounded Map, emptied when full, is
 * all it takes (lru-cache's recency bookkeeping cost as much as the stemmer it saved).
 */
import { stemmer } from 'stemmer';
import { broaderWords, hypernymLemmas, nounLemma, type Thesaurus } from './concepts.ts';
import { coHyponyms } from './coverage.ts';

/** Most entries each memo keeps; past it, the memo starts again empty. */
export const MEMO_ENTRIES = 50_000;

/** `f` remembered for up to `max` keys. */
export function memoised<V>(f: (key: string) => V, max = MEMO_ENTRIES): (key: string) => V {
  const kept = new Map<string, V>();
  return (key) => {
    let v = kept.get(key);
    if (v === undefined) {
      v = f(key);
      if (kept.size >= max) kept.clear();
      kept.set(key, v);
    }
    return v;
  };
}

/** The memoised derivations (each as the function it stands for; results shared, never to be changed). */
export interface WordMemo {
  /** `stemmer` (Porter) */
  stem: (word: string) => string;
  /** `nounLemma`; null without a thesaurus */
  lemma: (word: string) => string | null;
  /** `coHyponyms`; null without a thesaurus */
  siblings: (word: string) => ReadonlySet<string> | null;
  /** `broaderWords(t, names)`, remembered per name (and its per-word steps); [] without a thesaurus */
  broader: (names: string[]) => string[];
}

const NO_THESAURUS = {};
const memos = new WeakMap<object, WordMemo>();

/** The memo of a thesaurus (one per thesaurus object, kept as long as it is), or of no thesaurus. */
export function wordMemoOf(t: Thesaurus | null): WordMemo {
  const key = t ?? NO_THESAURUS;
  let m = memos.get(key);
  if (!m) {
    const stem = memoised((w) => stemmer(w));
    if (t) {
      const lemma = memoised((w) => nounLemma(t, w));
      const above = memoised((l) => hypernymLemmas(t, l));
      // by the whole name: the same assets come back as candidates query after query
      const broader = memoised((names) => broaderWords(t, names.split(' '), 2, lemma, above));
      m = {
        stem,
        lemma,
        siblings: memoised((w) => coHyponyms(t, w)),
        broader: (names) => (names.length === 0 ? [] : broader(names.join(' '))),
      };
    } else m = { stem, lemma: () => null, siblings: () => null, broader: () => [] };
    memos.set(key, m);
  }
  return m;
}
