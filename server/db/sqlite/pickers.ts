import type { Database } from 'better-sqlite3';
import type { Scope } from '../../domain/scope.ts';
import type { NewPicker, PickerDelivery, PickerRow, PickerStatus, PickerStore } from '../ports/picker-store.ts';

interface RawRow {
  id: string;
  tenant_id: string;
  workspace_id: string;
  theme_id: string;
  delivery: PickerDelivery;
  status: PickerStatus;
  request: string;
  selection: string;
  created_at: string;
  confirmed_at: string | null;
}

const toRow = (r: RawRow): PickerRow => ({
  id: r.id,
  tenantId: r.tenant_id,
  workspaceId: r.workspace_id,
  themeId: r.theme_id,
  delivery: r.delivery,
  status: r.status,
  request: JSON.parse(r.request) as Record<string, unknown>,
  selection: JSON.parse(r.selection) as string[],
  createdAt: r.created_at,
  confirmedAt: r.confirmed_at,
});

/**
 * The SQLite `PickerStore` (table `pickers`, migrations 0006 and 0015): the embedded default. Every
 * lookup takes the server-derived scope first; a picker of another tenant or workspace behaves as
 * missing. better-sqlite3 is synchronous: each method does its work before it returns its promise.
 */
export function createSqlitePickerStore(db: Database): PickerStore {
  const s = {
    insert: db.prepare(
      `INSERT INTO pickers (id, tenant_id, workspace_id, theme_id, delivery, status, request, selection, created_at, confirmed_at)
       VALUES (@id, @tenant_id, @workspace_id, @theme_id, @delivery, @status, @request, @selection, @created_at, @confirmed_at)`,
    ),
    byId: db.prepare('SELECT * FROM pickers WHERE tenant_id = ? AND workspace_id = ? AND id = ?'),
    // Only an open picker (awaiting the user, or offered as candidates) can be finalised; the WHERE makes a concurrent double submit a no-op.
    finish: db.prepare(
      `UPDATE pickers SET status = ?, selection = ?, confirmed_at = ? WHERE tenant_id = ? AND workspace_id = ? AND id = ? AND status IN ('awaiting_user', 'candidates')`,
    ),
    expire: db.prepare(`UPDATE pickers SET status = 'expired' WHERE status = 'awaiting_user' AND created_at < ?`),
  };
  return {
    async insert(p: NewPicker, scope: Scope): Promise<void> {
      s.insert.run({
        id: p.id,
        tenant_id: scope.tenantId,
        workspace_id: scope.workspaceId,
        theme_id: p.themeId,
        delivery: p.delivery,
        status: p.status,
        request: JSON.stringify(p.request),
        selection: JSON.stringify(p.selection),
        created_at: p.createdAt,
        confirmed_at: p.confirmedAt,
      });
    },
    async byId(scope: Scope, id: string): Promise<PickerRow | undefined> {
      const r = s.byId.get(scope.tenantId, scope.workspaceId, id.toLowerCase()) as RawRow | undefined;
      return r ? toRow(r) : undefined;
    },
    async finish(
      scope: Scope,
      id: string,
      status: Exclude<PickerStatus, 'awaiting_user'>,
      selection: string[],
      at: string,
    ): Promise<boolean> {
      return s.finish.run(status, JSON.stringify(selection), at, scope.tenantId, scope.workspaceId, id.toLowerCase()).changes === 1;
    },
    expireBefore: async (cutoffIso: string): Promise<number> => s.expire.run(cutoffIso).changes,
  };
}
