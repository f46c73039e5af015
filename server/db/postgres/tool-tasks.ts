import type { NewToolTask, ToolTaskRenewal, ToolTaskRow, ToolTaskStatus, ToolTaskStore } from '../ports/tool-task-store.ts';
import { isoOf, type PgPool } from './pool.ts';

interface RawRow {
  id: string;
  tenant_id: string;
  tool: string;
  action: string;
  status: ToolTaskStatus;
  status_message: string | null;
  outcome: Record<string, unknown> | null;
  cancel_requested: boolean;
  created_at: Date;
  updated_at: Date;
  lease_until: number;
  ttl_ms: number;
}

const toRow = (r: RawRow): ToolTaskRow => ({
  id: r.id,
  tenantId: r.tenant_id,
  tool: r.tool,
  action: r.action,
  status: r.status,
  statusMessage: r.status_message,
  outcome: r.outcome,
  cancelRequested: r.cancel_requested,
  leaseUntilMs: r.lease_until,
  createdAt: isoOf(r.created_at)!,
  updatedAt: isoOf(r.updated_at)!,
  ttlMs: r.ttl_ms,
});

/**
 * The PostgreSQL `ToolTaskStore` (table `tool_tasks` of postgres/migrations/0022). Every change is one
 * conditional UPDATE, so of two processes racing to end a task exactly one does.
 */
export function createPgToolTaskStore(pool: PgPool): ToolTaskStore {
  return {
    async create(t: NewToolTask) {
      await pool.query(
        `INSERT INTO tool_tasks (id, tenant_id, tool, action, status, owner, lease_until, created_at, updated_at, ttl_ms, expires_at)
         VALUES ($1, $2, $3, $4, 'working', $5, $6, $7, $7, $8, $9)`,
        [t.id, t.tenantId, t.tool, t.action, t.owner, t.leaseUntilMs, t.createdAt, t.ttlMs, Date.parse(t.createdAt) + t.ttlMs],
      );
    },
    async get(tenantId, id, nowMs) {
      const r = await pool.query<RawRow>('SELECT * FROM tool_tasks WHERE tenant_id = $1 AND id = $2 AND expires_at > $3', [
        tenantId,
        id.toLowerCase(),
        nowMs,
      ]);
      return r.rows[0] ? toRow(r.rows[0]) : undefined;
    },
    async renew(id, owner, message, leaseUntilMs, at): Promise<ToolTaskRenewal> {
      const r = await pool.query<{ cancel_requested: boolean }>(
        `UPDATE tool_tasks SET lease_until = $3,
           updated_at = CASE WHEN $4::text IS NOT NULL AND status_message IS DISTINCT FROM $4::text THEN $5::timestamptz ELSE updated_at END,
           status_message = COALESCE($4::text, status_message)
         WHERE id = $1 AND owner = $2 AND status = 'working'
         RETURNING cancel_requested`,
        [id, owner, leaseUntilMs, message, at],
      );
      return r.rows[0] ? { cancelRequested: r.rows[0].cancel_requested } : null;
    },
    async finish(id, owner, status, message, outcome, at) {
      const r = await pool.query(
        `UPDATE tool_tasks SET status = $3, status_message = $4, outcome = $5::jsonb, updated_at = $6
         WHERE id = $1 AND owner = $2 AND status = 'working'`,
        [id, owner, status, message, outcome === null ? null : JSON.stringify(outcome), at],
      );
      return r.rowCount === 1;
    },
    async requestCancel(tenantId, id, nowMs) {
      // one statement: the row as it was (missing, terminal) and the flag set when it was still working
      const r = await pool.query<{ status: ToolTaskStatus }>(
        `WITH hit AS (SELECT id, status FROM tool_tasks WHERE tenant_id = $1 AND id = $2 AND expires_at > $3),
              upd AS (UPDATE tool_tasks t SET cancel_requested = true FROM hit WHERE t.id = hit.id AND t.status = 'working')
         SELECT status FROM hit`,
        [tenantId, id.toLowerCase(), nowMs],
      );
      const status = r.rows[0]?.status;
      return status === undefined ? 'missing' : status === 'working' ? 'requested' : 'terminal';
    },
    async abandonStale(id, nowMs, message, error, at) {
      const r = await pool.query(
        `UPDATE tool_tasks SET status = 'failed', status_message = $2, outcome = $3::jsonb, updated_at = $4
         WHERE id = $1 AND status = 'working' AND lease_until < $5`,
        [id, message, JSON.stringify(error), at, nowMs],
      );
      return r.rowCount === 1;
    },
    async sweep(nowMs) {
      return (await pool.query('DELETE FROM tool_tasks WHERE expires_at <= $1', [nowMs])).rowCount ?? 0;
    },
  };
}
