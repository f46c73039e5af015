import { stemmer } from 'stemmer';
import type { StoreScope } from '../db/ports/product-store.ts';
import { headWord } from '../domain/search/query-words.ts';
import type { Thesaurus } from '../domain/search/concepts.ts';
import { labelsAgree, termConcepts } from '../domain/search/coverage.ts';
import { MATCH } from '../domain/search/fusion.ts';
import type { LexicalResult } from '../domain/search/lexical.ts';
import type { SynonymRule } from '../domain/search/lexical-words.ts';
import type { CatalogDeps } from './deps.ts';

/**
 * The meaning matches of a hybrid pass that another signal corroborates (issue 33): of the semantic hits
 * accepted under the store's null model (relevance ≥ 0.5) that the lexical side does not match, those with
 * the query's word in their text (a partial lexical match), and those whose type, a tag or a collection
 * handle agrees with it (domain/search/coverage.ts `labelsAgree`: the word, its correction, an operator
 * synonym or a WordNet relative of it, as whole words). The others stay suggestions: "leather jacket" is
 * near a sofa in the embedding, but nothing a sofa is labelled with is a jacket.
 * In a query of several words the word is its head (query-words.ts `headWord`), the kind of thing asked
 * for: a necklace that says "silver" is no corroborated match for "silver earrings", nor a trowel in the
 * "garden" collection for "wooden garden fence".
 * @param semantic calibrated KNN hits (domain/search/calibration.ts `semanticRelevance`)
 * @returns seqs of the corroborated products among the accepted semantic hits
 * @throws what the product store throws
 */
export async function agreeingProducts(
  deps: Pick<CatalogDeps, 'products'>,
  scope: StoreScope,
  lexical: LexicalResult,
  semantic: readonly { seq: number; relevance: number }[],
  o: { thesaurus: Thesaurus | null; synonyms: readonly SynonymRule[]; query: string },
): Promise<Set<number>> {
  const out = new Set<number>();
  const worded = new Set<number>();
  // the head's place among the terms (−1: a one-word query, whose terms all count)
  const hw = headWord(o.query);
  const head = hw === null ? -1 : lexical.termWords.findIndex((t) => t.stem === stemmer(hw));
  for (let i = 0; i < lexical.hits.length; i++) {
    const seq = lexical.hits.seq[i]!;
    if (head >= 0 ? (lexical.termQuality(seq)?.[head] ?? 0) > 0 : lexical.hits.relevance[i]! > 0) worded.add(seq);
  }
  // the query's word in its own text (too little to match lexically) already backs a meaning match
  for (const h of semantic) if (h.relevance >= MATCH && worded.has(h.seq)) out.add(h.seq);
  const alone = semantic.filter((h) => h.relevance >= MATCH && !worded.has(h.seq)).map((h) => h.seq);
  if (alone.length === 0) return out;
  const corrected = new Map(lexical.corrections.map((c) => [c.from, c.to]));
  // the terms whose concepts a label may hold: the head alone, or every term of a one-word query
  const backing = head >= 0 ? [lexical.termWords[head]!] : lexical.termWords;
  const concepts = backing.map((t) => termConcepts(o.thesaurus, t.word, { correction: corrected.get(t.word), synonyms: o.synonyms }));
  const [rows, collections] = await Promise.all([deps.products.bySeqs(scope, alone), deps.products.collectionsOf(alone)]);
  const handles = new Map<number, string[]>();
  for (const c of collections) handles.set(c.product_seq, [...(handles.get(c.product_seq) ?? []), c.handle]);
  for (const r of rows) {
    const labels = [r.product_type, ...r.tags, ...(handles.get(r.seq) ?? [])].filter((l) => l.trim().length > 0);
    if (labelsAgree(concepts, labels)) out.add(r.seq);
  }
  return out;
}
