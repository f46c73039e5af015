import type { Database } from 'better-sqlite3';
import type { SynonymRule } from '../domain/lexical-words.ts';
import type { SynonymStore } from './ports/synonym-store.ts';
import { createSynonymQueries } from './synonyms.ts';

const bare = (r: SynonymRule): SynonymRule => ({ kind: r.kind, input: r.input, words: r.words });

/**
 * The SQLite `SynonymStore`: an adapter over the synchronous queries of server/db/synonyms.ts (table of
 * migration 0021). better-sqlite3 is synchronous: each method does its work before it returns its promise.
 */
export function createSqliteSynonymStore(db: Database): SynonymStore {
  const q = createSynonymQueries(db);
  return {
    add: async (scope, storeId, rule) => q.add(scope, storeId, rule),
    list: async (scope) => q.list(scope),
    forAssets: async (scope) => q.forAssets(scope).map(bare),
    forStore: async (scope, storeId) => q.forStore(scope, storeId).map(bare),
    byId: async (id) => q.byId(id),
    remove: async (scope, id) => q.remove(scope, id),
  };
}
