import type { StoreScope } from '../db/ports/product-store.ts';
import { MATCH } from '../domain/search/fusion.ts';
import { belowMatch, LexicalHits } from '../domain/search/hit-lists.ts';
import { CLASS_QUALITY, LEXICAL_MATCH, type LexicalResult } from '../domain/search/lexical.ts';
import { contradictsColour, queryColour, statedColours } from '../domain/search/stated-colours.ts';
import type { CatalogDeps } from './deps.ts';

/**
 * Candidates checked against the query's colour words: the best this many lexical matches and accepted
 * semantic hits each, as asset coverage scores its best 100 of each (assets/coverage.ts `COVERAGE_DEPTH`):
 * twice the largest page.
 */
const COLOUR_DEPTH = 100;

/**
 * The products of a ranked pass whose own text contradicts a colour word of the query (issue 33: loose
 * matches are not matches). A product contradicts "blue" when its title, description, type, tags or option
 * values state colours (domain/search/stated-colours.ts: basic colour terms, and shades such as "navy" or
 * "cream" as the terms they are called by), none of them blue, and the lexical planner did not reach "blue"
 * in it through a synonym or a narrower word. "blue shirt" is then no match for the White Cotton Shirt,
 * though its head word and its embedding are near; it stays a suggestion. A product whose text states no
 * colour ("Classic Leather Jacket") is never contradicted.
 * @param semantic calibrated KNN hits (relevance ≥ 0.5 accepted), or null in lexical mode
 * @returns seqs of the contradicted candidates (empty when the query has no colour word)
 * @throws what the product store throws
 */
export async function colourContradicted(
  deps: Pick<CatalogDeps, 'products'>,
  scope: StoreScope,
  lexical: LexicalResult,
  semantic: readonly { seq: number; relevance: number }[] | null,
): Promise<Set<number>> {
  const colours = lexical.termWords.flatMap((t, i) => {
    const terms = queryColour(t.word);
    return terms ? [{ term: i, terms }] : [];
  });
  if (colours.length === 0) return new Set();
  const seqs = new Set<number>();
  for (let i = 0; i < lexical.hits.length && seqs.size < COLOUR_DEPTH; i++)
    if (lexical.hits.relevance[i]! >= LEXICAL_MATCH) seqs.add(lexical.hits.seq[i]!);
  for (const h of (semantic ?? []).filter((h) => h.relevance >= MATCH).slice(0, COLOUR_DEPTH)) seqs.add(h.seq);
  const out = new Set<number>();
  if (seqs.size === 0) return out;
  for (const r of await deps.products.bySeqs(scope, [...seqs])) {
    const stated = statedColours([
      r.title,
      r.product_type,
      r.tags.join(' '),
      r.description_text,
      ...r.options.map((o) => o.values.join(' ')),
    ]);
    const quality = lexical.termQuality(r.seq);
    if (colours.some((c) => contradictsColour(c.terms, stated) && (quality?.[c.term] ?? 0) < CLASS_QUALITY.hyponym)) out.add(r.seq);
  }
  return out;
}

/** Lexical hits with the relevance of `vetoed` kept below a match (`belowMatch`), in the same order. */
export function withoutMatches(hits: LexicalHits, vetoed: ReadonlySet<number>): LexicalHits {
  const relevance = hits.relevance.map((r, i) => (vetoed.has(hits.seq[i]!) ? belowMatch(r, LEXICAL_MATCH) : r));
  return new LexicalHits(hits.seq, relevance, hits.by, hits.complete);
}
