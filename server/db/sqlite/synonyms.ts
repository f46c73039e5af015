import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { SynonymRule } from '../../domain/search/lexical-words.ts';
import type { SynonymRow, SynonymStore } from '../ports/synonym-store.ts';

interface RawRow extends Omit<SynonymRow, 'words'> {
  words: string;
}
const parse = (r: RawRow): SynonymRow => ({ ...r, words: JSON.parse(r.words) as string[] });
const bare = (r: SynonymRule): SynonymRule => ({ kind: r.kind, input: r.input, words: r.words });

/** Rule lists kept per scope (they are small: a few rules each). */
const KEPT = 1024;

/**
 * The SQLite `SynonymStore`: operator synonym lists per workspace and store (`atelier synonyms …`, table
 * of migration 0021). Reads are scoped; a rule of another workspace behaves as missing. The rules a
 * search applies are kept per scope with the change-log head they were read at: every rule change moves
 * the head (migration 0056), so a search that gives the head it read reuses them while it stands (no read
 * per search). better-sqlite3 is synchronous: each method does its work before it returns its promise.
 */
export function createSqliteSynonymStore(db: Database): SynonymStore {
  const s = {
    insert: db.prepare(
      'INSERT INTO search_synonyms (id, tenant_id, workspace_id, store_id, kind, input, words, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    ofWorkspace: db.prepare(
      'SELECT id, workspace_id, store_id, kind, input, words, created_at FROM search_synonyms WHERE tenant_id = ? AND workspace_id = ? ORDER BY created_at, id',
    ),
    forAssets: db.prepare(
      'SELECT id, workspace_id, store_id, kind, input, words, created_at FROM search_synonyms WHERE tenant_id = ? AND workspace_id = ? AND store_id IS NULL ORDER BY created_at, id',
    ),
    forStore: db.prepare(
      'SELECT id, workspace_id, store_id, kind, input, words, created_at FROM search_synonyms WHERE tenant_id = ? AND workspace_id = ? AND (store_id IS NULL OR store_id = ?) ORDER BY created_at, id',
    ),
    remove: db.prepare('DELETE FROM search_synonyms WHERE id = ? AND tenant_id = ? AND workspace_id = ?'),
    byId: db.prepare('SELECT id, tenant_id, workspace_id, store_id, kind, input, words, created_at FROM search_synonyms WHERE id = ?'),
  };
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
    async add(scope, storeId, rule) {
      const row: SynonymRow = {
        id: randomUUID(),
        workspace_id: scope.workspaceId,
        store_id: storeId,
        kind: rule.kind,
        input: rule.input,
        words: rule.words,
        created_at: new Date().toISOString(),
      };
      s.insert.run(row.id, scope.tenantId, scope.workspaceId, storeId, rule.kind, rule.input, JSON.stringify(rule.words), row.created_at);
      return row;
    },
    list: async (scope) => (s.ofWorkspace.all(scope.tenantId, scope.workspaceId) as RawRow[]).map(parse),
    forAssets: async (scope, head) =>
      atHead(`${scope.tenantId}|${scope.workspaceId}|`, head, () =>
        (s.forAssets.all(scope.tenantId, scope.workspaceId) as RawRow[]).map(parse),
      ),
    forStore: async (scope, storeId, head) =>
      atHead(`${scope.tenantId}|${scope.workspaceId}|${storeId}`, head, () =>
        (s.forStore.all(scope.tenantId, scope.workspaceId, storeId) as RawRow[]).map(parse),
      ),
    async byId(id) {
      const r = s.byId.get(id) as (RawRow & { tenant_id: string }) | undefined;
      return r ? { ...parse(r), tenant_id: r.tenant_id } : undefined;
    },
    remove: async (scope, id) => s.remove.run(id, scope.tenantId, scope.workspaceId).changes > 0,
  };
}
