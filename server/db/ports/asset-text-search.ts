import type { Scope } from '../../domain/scope.ts';
import type { AssetFilters } from '../assets.ts';

/**
 * Port: full-text search over the assets of one scope, by words. An asset matches when every word
 * matches a word of its name (with its readable name words), tags (user and automatic, automatic colour
 * words excepted), alt text or OCR text, after stemming (English) and diacritic folding; ranking prefers
 * matches in the heavier fields (name 4, tags 3, alt text 2, OCR text 1), ties newest seq first.
 * Rankings differ between backends (FTS5 BM25 vs ts_rank_cd) and so do the stemmers (Porter vs
 * Snowball English) and stop words (PostgreSQL's english configuration drops words such as "the"):
 * compare backends by relevance metrics, not by identical order. Implementations: SQLite
 * (server/db/asset-text-search.ts over FTS5 through server/db/lexical-index.ts) and PostgreSQL
 * (server/db/postgres/asset-text-search.ts, tsvector + GIN); both pass
 * server/db/contract/asset-text-search-contract.ts.
 */
export interface AssetTextSearch {
  /**
   * Assets of `scope` under the filters matching every word of `words` (already split, as
   * domain/fts-query.ts `queryTerms` splits a query: letters and digits only), best first.
   * @param k most seqs returned
   * @returns the best `k` seqs and how many match in all under the filters (no words: none)
   */
  search(scope: Scope, words: string[], f: AssetFilters, k: number): Promise<{ seqs: number[]; total: number }>;
}
