import type { Database } from 'better-sqlite3';
import { createAssetFacetQueries } from './asset-facets.ts';
import type { AssetFacetStore } from '../ports/asset-facet-store.ts';

/**
 * The SQLite `AssetFacetStore`: an adapter over the synchronous queries of server/db/sqlite/asset-facets.ts
 * (assets and assets_fts), which it does not change. better-sqlite3 is synchronous: each method does its
 * work before it returns its promise.
 */
export function createSqliteAssetFacetStore(db: Database): AssetFacetStore {
  const q = createAssetFacetQueries(db);
  return {
    countsOf: async (scope, seqs) => q.countsOf(scope, seqs),
    counts: async (scope, opts) => q.counts(scope, opts),
  };
}
