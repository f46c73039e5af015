/**
 * WordNet concept matches checked against a document's own words. The planner (lexical.ts) finds a concept
 * word through the index, which keeps Porter stems only, so what it finds may be a verb or an adjective of
 * the same stem: "ocean waves" expands to the hyponym "ripple" and met "Wind-rippled sand dunes", "surface"
 * a "flat-topped mesa" through "top", "decoration" a cactus "crowned with blossoms" through "crown".
 * WordNet's relations here are between nouns (concepts.ts), so a concept word counts only where the
 * document says it as a noun: the lemma itself, or an inflection that reads back to it (`nounLemmas`:
 * "plants", "dunes"). A concept of several words ("industrial plant") is checked as a phrase. The planner
 * runs the check on every candidate (`checkCandidates`) with the texts its caller reads: assets
 * (assets/coverage.ts `assetTexts`) and products (catalog/list.ts) alike.
 */
import { nounLemmas, type Thesaurus } from './concepts.ts';
import { BY_BIT, type TermCells } from './lexical-candidates.ts';
import { indexWords } from './query-words.ts';

/**
 * The texts of candidate documents the noun check reads (a title, a description, tags joined…), by seq; a
 * seq left out says nothing. Given to the planner by the use case that owns the rows (`LexicalOptions`).
 * @throws what the store reading the rows throws
 */
export type ConceptTexts = (seqs: readonly number[]) => Promise<ReadonlyMap<number, readonly (string | null | undefined)[]>>;

/** A document's words, text by text in order (query-words.ts `indexWords`), for `saysAsNoun`. */
export function documentForms(texts: readonly (string | null | undefined)[]): string[][] {
  return texts.flatMap((t) => (t ? [indexWords(t)] : []));
}

/**
 * A candidate's best quality per query term, with each match that only a WordNet concept gave re-scored by the
 * concept groups holding a word the document says as a noun (`says`; 0 when none does). Other matches keep their
 * quality: the word itself, a correction, or the scope's own synonym list.
 * @param quality the planner's best quality per term; not modified
 * @param kinds the kinds that gave it, per term (bit masks of lexical-candidates.ts `BY_BIT`: 1 text, 2 typo, 4 concept)
 * @param groups per term, the WordNet groups that matched documents (null: a group of the scope's own synonym list, trusted)
 * @param says whether the document says a concept (a lemma) as a noun (`saysAsNoun`)
 * @returns the checked qualities, one per term (a new array; the same values when nothing changed)
 */
export function checkConceptForms(
  quality: Float64Array,
  kinds: Uint8Array,
  groups: readonly (readonly { quality: number; words: readonly string[] }[] | null)[],
  says: (lemma: string) => boolean,
): Float64Array {
  const out = quality.slice();
  for (let i = 0; i < out.length; i++) {
    const g = groups[i];
    if (kinds[i] !== BY_BIT.concept || !g || g.length === 0) continue;
    let best = 0;
    for (const grp of g) if (grp.quality > best && grp.words.some(says)) best = grp.quality;
    out[i] = Math.min(out[i]!, best);
  }
  return out;
}

/**
 * The `says` test of `checkConceptForms` for one document: whether it says a concept as a noun. A word: the
 * lemma, or an inflection that reads back to it ("shoes" is read as "shoes" and as "shoe"). A phrase
 * ("industrial plant"): its words in a row, the last one inflected or not.
 * @param forms the document's words (`documentForms`), asked for only when a concept is checked
 * @param lemmasOf every noun lemma a word may be read as, [] when it is no noun (concepts.ts `nounLemmas`, memoised)
 */
export function saysAsNoun(
  forms: () => readonly (readonly string[])[],
  lemmasOf: (word: string) => readonly string[],
): (lemma: string) => boolean {
  let texts: (readonly string[])[] | null = null;
  let nouns: Set<string> | null = null;
  // an unknown word stands for itself (a product name, a place)
  const readings = (w: string): readonly string[] => {
    const l = lemmasOf(w);
    return l.length > 0 ? l : [w];
  };
  return (lemma) => {
    texts ??= [...forms()];
    nouns ??= new Set(texts.flat().flatMap(readings));
    // one word (most concepts): no need to tokenize it, for each of a group's words and each candidate
    if (!/[^\p{L}\p{N}]/u.test(lemma)) return nouns.has(lemma);
    const want = indexWords(lemma);
    const n = want.length;
    if (n <= 1) return nouns.has(lemma);
    return texts.some((ws) =>
      ws.some((_, k) => k + n <= ws.length && want.every((w, j) => (j < n - 1 ? ws[k + j] === w : readings(ws[k + j]!).includes(w)))),
    );
  };
}

/**
 * The noun check of every candidate of a lexical pass, in place: each candidate with a term matched only by a
 * WordNet concept has that term re-scored by `checkConceptForms` against its own texts, and the term's
 * concept bit cleared where no group holds (so `matched_by` no longer says "concept"). The texts are read
 * once, for those candidates only.
 * @param seqs the candidates, as `cells` indexes them
 * @param cells the candidates' best quality and match kinds per term (lexical-candidates.ts); modified
 * @param groups per term, the WordNet groups that matched documents (null: a trusted operator group)
 * @throws what `texts` throws
 */
export async function checkCandidates(
  seqs: ArrayLike<number>,
  cells: TermCells,
  groups: readonly (readonly { quality: number; words: readonly string[] }[] | null)[],
  thesaurus: Thesaurus,
  texts: ConceptTexts,
): Promise<void> {
  const { n, quality, byMask } = cells;
  const conceptOnly = (j: number) => groups.some((g, i) => g !== null && g.length > 0 && byMask[j * n + i] === BY_BIT.concept);
  const pending: number[] = [];
  for (let j = 0; j < seqs.length; j++) if (conceptOnly(j)) pending.push(j);
  if (pending.length === 0) return;
  const read = await texts(pending.map((j) => seqs[j]!));
  const memo = new Map<string, readonly string[]>();
  const lemmas = (w: string): readonly string[] => {
    let l = memo.get(w);
    if (l === undefined) memo.set(w, (l = nounLemmas(thesaurus, w)));
    return l;
  };
  for (const j of pending) {
    const q = quality.subarray(j * n, j * n + n);
    const k = byMask.subarray(j * n, j * n + n);
    const checked = checkConceptForms(
      q,
      k,
      groups,
      saysAsNoun(() => documentForms(read.get(seqs[j]!) ?? []), lemmas),
    );
    for (let i = 0; i < n; i++) {
      q[i] = checked[i]!;
      if (checked[i]! <= 0) k[i] = 0;
    }
  }
}
