import type { Database } from 'better-sqlite3';
import type { NewToolTask, ToolTaskRenewal, ToolTaskRow, ToolTaskStatus, ToolTaskStore } from '../ports/tool-task-store.ts';

interface RawRow {
  id: string;
  tenant_id: string;
  tool: string;
  action: string;
  status: ToolTaskStatus;
  status_message: string | null;
  outcome: string | null;
  cancel_requested: number;
  created_at: string;
  updated_at: string;
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
  outcome: r.outcome === null ? null : (JSON.parse(r.outcome) as Record<string, unknown>),
  cancelRequested: r.cancel_requested === 1,
  leaseUntilMs: r.lease_until,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ttlMs: r.ttl_ms,
});

/**
 * The SQLite `ToolTaskStore` (table `tool_tasks`, migration 0064): the embedded default. Every change is one
 * conditional statement, so concurrent processes on the file (WAL) never both end a task. better-sqlite3 is
 * synchronous: each method does its work before it returns its promise.
 */
export function createSqliteToolTaskStore(db: Database): ToolTaskStore {
  const s = {
    create: db.prepare(
      `INSERT INTO tool_tasks (id, tenant_id, tool, action, status, owner, lease_until, created_at, updated_at, ttl_ms, expires_at)
       VALUES (@id, @tenant_id, @tool, @action, 'working', @owner, @lease_until, @created_at, @created_at, @ttl_ms, @expires_at)`,
    ),
    get: db.prepare('SELECT * FROM tool_tasks WHERE tenant_id = ? AND id = ? AND expires_at > ?'),
    renew: db.prepare(
      `UPDATE tool_tasks SET lease_until = @lease_until,
         updated_at = CASE WHEN @message IS NOT NULL AND status_message IS NOT @message THEN @at ELSE updated_at END,
         status_message = COALESCE(@message, status_message)
       WHERE id = @id AND owner = @owner AND status = 'working'
       RETURNING cancel_requested`,
    ),
    finish: db.prepare(
      `UPDATE tool_tasks SET status = ?, status_message = ?, outcome = ?, updated_at = ? WHERE id = ? AND owner = ? AND status = 'working'`,
    ),
    cancel: db.prepare(
      `UPDATE tool_tasks SET cancel_requested = 1 WHERE tenant_id = ? AND id = ? AND expires_at > ? AND status = 'working' RETURNING id`,
    ),
    exists: db.prepare('SELECT 1 FROM tool_tasks WHERE tenant_id = ? AND id = ? AND expires_at > ?'),
    abandon: db.prepare(
      `UPDATE tool_tasks SET status = 'failed', status_message = ?, outcome = ?, updated_at = ? WHERE id = ? AND status = 'working' AND lease_until < ?`,
    ),
    sweep: db.prepare('DELETE FROM tool_tasks WHERE expires_at <= ?'),
  };
  return {
    async create(t: NewToolTask): Promise<void> {
      s.create.run({
        id: t.id,
        tenant_id: t.tenantId,
        tool: t.tool,
        action: t.action,
        owner: t.owner,
        lease_until: t.leaseUntilMs,
        created_at: t.createdAt,
        ttl_ms: t.ttlMs,
        expires_at: Date.parse(t.createdAt) + t.ttlMs,
      });
    },
    async get(tenantId, id, nowMs) {
      const r = s.get.get(tenantId, id.toLowerCase(), nowMs) as RawRow | undefined;
      return r ? toRow(r) : undefined;
    },
    async renew(id, owner, message, leaseUntilMs, at): Promise<ToolTaskRenewal> {
      const r = s.renew.get({ id, owner, message, lease_until: leaseUntilMs, at }) as { cancel_requested: number } | undefined;
      return r ? { cancelRequested: r.cancel_requested === 1 } : null;
    },
    async finish(id, owner, status, message, outcome, at) {
      return s.finish.run(status, message, outcome === null ? null : JSON.stringify(outcome), at, id, owner).changes === 1;
    },
    async requestCancel(tenantId, id, nowMs) {
      const key = id.toLowerCase();
      if (s.cancel.get(tenantId, key, nowMs)) return 'requested';
      return s.exists.get(tenantId, key, nowMs) ? 'terminal' : 'missing';
    },
    async abandonStale(id, nowMs, message, error, at) {
      return s.abandon.run(message, JSON.stringify(error), at, id, nowMs).changes === 1;
    },
    sweep: async (nowMs) => s.sweep.run(nowMs).changes,
  };
}
