import type { Database } from 'better-sqlite3';
import type { SynonymRule } from '../../domain/search/lexical-words.ts';
import type { SynonymStore } from '../ports/synonym-store.ts';
import { createSynonymQueries } from './synonyms.ts';

const bare = (r: SynonymRule): SynonymRule => ({ kind: r.kind, input: r.input, words: r.words });

/** Rule lists kept per scope (they are small: a few rules each). */
const KEPT = 1024;

/**
 * The SQLite `SynonymStore`: an adapter over the synchronous queries of server/db/sqlite/synonyms.ts (table of
 * migration 0021). better-sqlite3 is synchronous: each method does its work before it returns its promise.
 * The rules a search applies are kept per scope with the change-log head they were read at: every
 * rule change moves the head (migration 0056), so a search that gives the head it read reuses them
 * while it stands (no read per search).
 */
export function createSqliteSynonymStore(db: Database): SynonymStore {
  const q = createSynonymQueries(db);
  const kept = new Map<string, { head: number; rules: readonly SynonymRule[] }>();
  const atHead = (key: string, head: number | undefined, read: () => SynonymRule[]): readonly SynonymRule[] => {
    const hit = head === undefined ? undefined : kept.get(key);
    if (hit && hit.head === head) return hit.rules;
    const rules = Object.freeze(read().map(bare));
    if (head !== undefined) {
      if (kept.size >= KEPT) kept.clear();
      kept.set(key, { head, rules });
    }
    return rules;
  };
  return {
    add: async (scope, storeId, rule) => q.add(scope, storeId, rule),
    list: async (scope) => q.list(scope),
    forAssets: async (scope, head) => atHead(`${scope.tenantId}|${scope.workspaceId}|`, head, () => q.forAssets(scope)),
    forStore: async (scope, storeId, head) =>
      atHead(`${scope.tenantId}|${scope.workspaceId}|${storeId}`, head, () => q.forStore(scope, storeId)),
    byId: async (id) => q.byId(id),
    remove: async (scope, id) => q.remove(scope, id),
  };
}
