import type { NewPicker, PickerDelivery, PickerRow, PickerStatus, PickerStore } from '../ports/picker-store.ts';
import { isoOf, type PgPool } from './pool.ts';

interface RawRow {
  id: string;
  tenant_id: string;
  workspace_id: string;
  theme_id: string;
  delivery: PickerDelivery;
  status: PickerStatus;
  request: Record<string, unknown>;
  selection: string[];
  created_at: Date;
  confirmed_at: Date | null;
}

const toRow = (r: RawRow): PickerRow => ({
  id: r.id,
  tenantId: r.tenant_id,
  workspaceId: r.workspace_id,
  themeId: r.theme_id,
  delivery: r.delivery,
  status: r.status,
  request: r.request,
  selection: r.selection,
  createdAt: isoOf(r.created_at)!,
  confirmedAt: isoOf(r.confirmed_at),
});

/**
 * The PostgreSQL `PickerStore` (table `pickers` of postgres/migrations/0001). `finish` is one conditional
 * UPDATE, so of two concurrent submits (any process) exactly one wins. Not wired into the server yet
 * (see pool.ts).
 */
export function createPgPickerStore(pool: PgPool): PickerStore {
  return {
    async insert(p: NewPicker, scope) {
      await pool.query(
        `INSERT INTO pickers (id, tenant_id, workspace_id, theme_id, delivery, status, request, selection, created_at, confirmed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10)`,
        [
          p.id,
          scope.tenantId,
          scope.workspaceId,
          p.themeId,
          p.delivery,
          p.status,
          JSON.stringify(p.request),
          JSON.stringify(p.selection),
          p.createdAt,
          p.confirmedAt,
        ],
      );
    },
    async byId(scope, id) {
      const r = await pool.query<RawRow>('SELECT * FROM pickers WHERE tenant_id = $1 AND workspace_id = $2 AND id = $3', [
        scope.tenantId,
        scope.workspaceId,
        id.toLowerCase(),
      ]);
      return r.rows[0] ? toRow(r.rows[0]) : undefined;
    },
    async finish(scope, id, status, selection, at) {
      const r = await pool.query(
        `UPDATE pickers SET status = $1, selection = $2::jsonb, confirmed_at = $3
         WHERE tenant_id = $4 AND workspace_id = $5 AND id = $6 AND status IN ('awaiting_user', 'candidates')`,
        [status, JSON.stringify(selection), at, scope.tenantId, scope.workspaceId, id.toLowerCase()],
      );
      return r.rowCount === 1;
    },
    async expireBefore(cutoffIso) {
      const r = await pool.query(`UPDATE pickers SET status = 'expired' WHERE status = 'awaiting_user' AND created_at < $1`, [cutoffIso]);
      return r.rowCount ?? 0;
    },
  };
}
