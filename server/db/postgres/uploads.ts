import { enforceQuota } from '../ports/storage-quota.ts';
import type { UploadError, UploadRow, UploadStatus, UploadStore } from '../ports/upload-store.ts';
import { PG_NOW_MS as NOW } from './job-queue.ts';
import { inTransaction, isoOf, type PgPool } from './pool.ts';
import { lockTenantUsage, pgStorageUsage } from './storage-usage.ts';

/** An `uploads` row as PostgreSQL gives it: timestamptz columns as Date, `tags` and `error` JSON text. */
type RawRow = Omit<UploadRow, 'created_at' | 'updated_at' | 'tags' | 'error'> & {
  created_at: Date;
  updated_at: Date;
  status: UploadStatus;
  tags: string | null;
  error: string | null;
};

const toRow = (r: RawRow): UploadRow => ({
  ...r,
  tags: r.tags === null ? null : (JSON.parse(r.tags) as string[]),
  error: r.error === null ? null : (JSON.parse(r.error) as UploadError),
  created_at: isoOf(r.created_at)!,
  updated_at: isoOf(r.updated_at)!,
});
const json = (v: unknown): string | null => (v === null ? null : JSON.stringify(v));

const COLUMNS = `id, tenant_id, workspace_id, status, filename, size_bytes, sha256, mime_type, alt_text, tags, purpose,
  chunk_size_bytes, chunk_count, asset_id, error, created_at, updated_at, expires_at_ms, panel_id`;

/**
 * The PostgreSQL `UploadStore` (tables `uploads` and `upload_chunks` of postgres/migrations/0001, the
 * completion lease of 0017). Rows come back in the port's shapes: timestamptz columns as ISO text, `tags`
 * and `error` parsed from their JSON text. Completion leases are set and compared by the database server's clock; each
 * transition is one conditional UPDATE from the state it expects, so concurrent processes serialise on the row.
 */
const LIVE = `(completing_owner IS NOT NULL AND completing_until >= ${NOW})`;

export function createPgUploadStore(pool: PgPool): UploadStore {
  const one = async (sql: string, params: unknown[]): Promise<UploadRow | undefined> => {
    const r = await pool.query<RawRow>(sql, params);
    return r.rows[0] ? toRow(r.rows[0]) : undefined;
  };
  return {
    insert: (u, o) =>
      inTransaction(pool, async (c) => {
        const quota = o?.quota;
        if (quota) {
          await lockTenantUsage(c, u.tenant_id);
          enforceQuota(quota, await pgStorageUsage(c, u.tenant_id, quota.nowMs), u.size_bytes);
        }
        await c.query(
          `INSERT INTO uploads (id, tenant_id, workspace_id, status, filename, size_bytes, sha256, mime_type, alt_text, tags, purpose,
           chunk_size_bytes, chunk_count, created_at, updated_at, expires_at_ms, panel_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14, $15, $16)`,
          [
            u.id,
            u.tenant_id,
            u.workspace_id,
            u.status,
            u.filename,
            u.size_bytes,
            u.sha256,
            u.mime_type,
            u.alt_text,
            json(u.tags),
            u.purpose,
            u.chunk_size_bytes,
            u.chunk_count,
            u.created_at,
            u.expires_at_ms,
            u.panel_id,
          ],
        );
      }),
    byId: (scope, id, nowMs) =>
      one(`SELECT ${COLUMNS} FROM uploads WHERE tenant_id = $1 AND workspace_id = $2 AND id = $3 AND expires_at_ms > $4`, [
        scope.tenantId,
        scope.workspaceId,
        id.toLowerCase(),
        nowMs,
      ]),
    openOfFile: (scope, f, nowMs) =>
      one(
        `SELECT ${COLUMNS} FROM uploads WHERE tenant_id = $1 AND workspace_id = $2 AND status = 'receiving' AND sha256 = $3
           AND size_bytes = $4 AND filename = $5 AND chunk_size_bytes = $6 AND expires_at_ms > $7 ORDER BY created_at DESC LIMIT 1`,
        [scope.tenantId, scope.workspaceId, f.sha256, f.size_bytes, f.filename, f.chunk_size_bytes, nowMs],
      ),
    async openCount(scope, nowMs) {
      const r = await pool.query<{ n: number }>(
        `SELECT count(*) AS n FROM uploads WHERE tenant_id = $1 AND workspace_id = $2 AND status IN ('receiving', 'staged') AND expires_at_ms > $3`,
        [scope.tenantId, scope.workspaceId, nowMs],
      );
      return r.rows[0]!.n;
    },
    async chunks(id) {
      return (
        await pool.query<{ idx: number; size_bytes: number }>(
          'SELECT idx, size_bytes FROM upload_chunks WHERE upload_id = $1 ORDER BY idx',
          [id],
        )
      ).rows;
    },
    async putChunk(id, idx, sizeBytes) {
      await pool.query(
        `INSERT INTO upload_chunks (upload_id, idx, size_bytes) VALUES ($1, $2, $3)
         ON CONFLICT (upload_id, idx) DO UPDATE SET size_bytes = excluded.size_bytes`,
        [id, idx, sizeBytes],
      );
    },
    async updateMeta(id, m) {
      await pool.query('UPDATE uploads SET mime_type = $1, alt_text = $2, tags = $3, purpose = $4, panel_id = $5 WHERE id = $6', [
        m.mime_type,
        m.alt_text,
        json(m.tags),
        m.purpose,
        m.panel_id,
        id,
      ]);
    },
    async importedOfPanel(scope, panelId, nowMs) {
      const r = await pool.query<RawRow>(
        `SELECT ${COLUMNS} FROM uploads WHERE tenant_id = $1 AND workspace_id = $2 AND panel_id = $3 AND status = 'imported'
           AND expires_at_ms > $4 ORDER BY updated_at, id`,
        [scope.tenantId, scope.workspaceId, panelId.toLowerCase(), nowMs],
      );
      return r.rows.map(toRow);
    },
    async touch(id, at, expiresAtMs) {
      await pool.query('UPDATE uploads SET updated_at = $1, expires_at_ms = $2 WHERE id = $3', [at, expiresAtMs, id]);
    },
    finish: (id, f, owner) =>
      inTransaction(pool, async (c) => {
        const r = await c.query(
          `UPDATE uploads SET status = $1, asset_id = $2, error = $3, updated_at = $4, expires_at_ms = $5,
             completing_owner = CASE WHEN $1 = 'staged' THEN completing_owner END,
             completing_until = CASE WHEN $1 = 'staged' THEN completing_until END
           WHERE id = $6 AND ($7::text IS NULL OR (completing_owner = $7 AND status IN ('receiving', 'staged', 'imported')))`,
          [f.status, f.asset_id, json(f.error), f.at, f.expires_at_ms, id, owner ?? null],
        );
        if ((r.rowCount ?? 0) === 0) return false;
        await c.query('DELETE FROM upload_chunks WHERE upload_id = $1', [id]);
        return true;
      }),
    async claimCompletion(id, owner, leaseMs) {
      const r = await pool.query(
        `UPDATE uploads SET completing_owner = $1, completing_until = ${NOW} + $2::bigint
         WHERE id = $3 AND status IN ('receiving', 'staged', 'imported') AND NOT ${LIVE}`,
        [owner, leaseMs, id],
      );
      return r.rowCount === 1;
    },
    async renewCompletion(id, owner, leaseMs) {
      const r = await pool.query(
        `UPDATE uploads SET completing_until = ${NOW} + $1::bigint WHERE id = $2 AND completing_owner = $3 AND status IN ('receiving', 'staged', 'imported')`,
        [leaseMs, id, owner],
      );
      return r.rowCount === 1;
    },
    async releaseCompletion(id, owner) {
      await pool.query('UPDATE uploads SET completing_owner = NULL, completing_until = NULL WHERE id = $1 AND completing_owner = $2', [
        id,
        owner,
      ]);
    },
    isCompleting: async (id) => (await pool.query(`SELECT 1 FROM uploads WHERE id = $1 AND ${LIVE}`, [id])).rowCount === 1,
    abort: (id, f) =>
      inTransaction(pool, async (c) => {
        const r = await c.query(
          `UPDATE uploads SET status = 'aborted', asset_id = NULL, error = NULL, updated_at = $1, expires_at_ms = $2,
             completing_owner = NULL, completing_until = NULL
           WHERE id = $3 AND status IN ('receiving', 'staged') AND NOT ${LIVE}`,
          [f.at, f.expires_at_ms, id],
        );
        if ((r.rowCount ?? 0) === 0) return false;
        await c.query('DELETE FROM upload_chunks WHERE upload_id = $1', [id]);
        return true;
      }),
    async expired(nowMs, limit = 500) {
      const r = await pool.query<{ id: string }>(
        `SELECT id FROM uploads WHERE expires_at_ms <= $1 AND NOT ${LIVE} ORDER BY expires_at_ms LIMIT $2`,
        [nowMs, limit],
      );
      return r.rows.map((x) => x.id);
    },
    async remove(id) {
      await pool.query('DELETE FROM uploads WHERE id = $1', [id]);
    },
    async exists(id) {
      return (await pool.query('SELECT 1 FROM uploads WHERE id = $1', [id])).rowCount === 1;
    },
  };
}
