import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { SynonymRule } from '../../domain/search/lexical-words.ts';
import type { Scope } from '../../domain/scope.ts';
import type { SynonymRow } from '../ports/synonym-store.ts';

interface RawRow extends Omit<SynonymRow, 'words'> {
  words: string;
}
const parse = (r: RawRow): SynonymRow => ({ ...r, words: JSON.parse(r.words) as string[] });

/**
 * Operator synonym lists per workspace and store (`atelier synonyms …`). Reads are scoped; a rule of
 * another workspace behaves as missing.
 */
export function createSynonymQueries(db: Database) {
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
  return {
    /** Add a rule. @returns the stored row */
    add(scope: Scope, storeId: string | null, rule: SynonymRule): SynonymRow {
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
    /** Every rule of a workspace (its own and its stores'), oldest first. */
    list: (scope: Scope): SynonymRow[] => (s.ofWorkspace.all(scope.tenantId, scope.workspaceId) as RawRow[]).map(parse),
    /** The rules asset search applies: the workspace's list, oldest first. */
    forAssets: (scope: Scope): SynonymRule[] => (s.forAssets.all(scope.tenantId, scope.workspaceId) as RawRow[]).map(parse),
    /** The rules list_products applies in a store: the workspace's list and the store's, oldest first. */
    forStore: (scope: Scope, storeId: string): SynonymRule[] =>
      (s.forStore.all(scope.tenantId, scope.workspaceId, storeId) as RawRow[]).map(parse),
    /** The rule with this id and its tenant, for operator commands that name only the id. */
    byId: (id: string): (SynonymRow & { tenant_id: string }) | undefined => {
      const r = s.byId.get(id) as (RawRow & { tenant_id: string }) | undefined;
      return r ? { ...parse(r), tenant_id: r.tenant_id } : undefined;
    },
    /** Delete a rule of the workspace. @returns whether it existed */
    remove: (scope: Scope, id: string): boolean => s.remove.run(id, scope.tenantId, scope.workspaceId).changes > 0,
  };
}
export type SynonymQueries = ReturnType<typeof createSynonymQueries>;
