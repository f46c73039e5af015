import { randomUUID } from 'node:crypto';
import type { SynonymRule } from '../../domain/search/lexical-words.ts';
import type { SynonymRow, SynonymStore } from '../ports/synonym-store.ts';
import { isoOf, type PgPool } from './pool.ts';

type RawRow = Omit<SynonymRow, 'words' | 'created_at'> & { words: string; created_at: Date };

const COLUMNS = 'id, workspace_id, store_id, kind, input, words, created_at';
const toRow = (r: RawRow): SynonymRow => ({
  id: r.id,
  workspace_id: r.workspace_id,
  store_id: r.store_id,
  kind: r.kind,
  input: r.input,
  words: JSON.parse(r.words) as string[],
  created_at: isoOf(r.created_at)!,
});
const toRule = (r: RawRow): SynonymRule => ({ kind: r.kind, input: r.input, words: JSON.parse(r.words) as string[] });

/** The PostgreSQL `SynonymStore` (table of postgres/migrations/0011). Not wired into the server yet (see pool.ts). */
export function createPgSynonymStore(pool: PgPool): SynonymStore {
  const rows = async (where: string, params: unknown[]): Promise<RawRow[]> =>
    (await pool.query<RawRow>(`SELECT ${COLUMNS} FROM search_synonyms WHERE ${where} ORDER BY created_at, id`, params)).rows;
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
      await pool.query(
        'INSERT INTO search_synonyms (id, tenant_id, workspace_id, store_id, kind, input, words, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [row.id, scope.tenantId, scope.workspaceId, storeId, rule.kind, rule.input, JSON.stringify(rule.words), row.created_at],
      );
      return row;
    },
    list: async (scope) => (await rows('tenant_id = $1 AND workspace_id = $2', [scope.tenantId, scope.workspaceId])).map(toRow),
    forAssets: async (scope) =>
      (await rows('tenant_id = $1 AND workspace_id = $2 AND store_id IS NULL', [scope.tenantId, scope.workspaceId])).map(toRule),
    forStore: async (scope, storeId) =>
      (
        await rows('tenant_id = $1 AND workspace_id = $2 AND (store_id IS NULL OR store_id = $3)', [
          scope.tenantId,
          scope.workspaceId,
          storeId,
        ])
      ).map(toRule),
    async byId(id) {
      const r = (await pool.query<RawRow & { tenant_id: string }>(`SELECT tenant_id, ${COLUMNS} FROM search_synonyms WHERE id = $1`, [id]))
        .rows[0];
      return r ? { ...toRow(r), tenant_id: r.tenant_id } : undefined;
    },
    async remove(scope, id) {
      const r = await pool.query('DELETE FROM search_synonyms WHERE id = $1 AND tenant_id = $2 AND workspace_id = $3', [
        id,
        scope.tenantId,
        scope.workspaceId,
      ]);
      return (r.rowCount ?? 0) > 0;
    },
  };
}
