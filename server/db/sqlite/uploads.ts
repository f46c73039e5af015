import type { Database } from 'better-sqlite3';
import { SQLITE_NOW_MS as NOW } from './enrichment-jobs.ts';
import { enforceQuota, type QuotaCheck } from '../ports/storage-quota.ts';
import type { NewUpload, UploadError, UploadFinish, UploadRow, UploadStore } from '../ports/upload-store.ts';
import { storageUsageQuery } from './storage-usage.ts';

/**
 * The SQLite `UploadStore` (tables `uploads` and `upload_chunks`, migrations 0005, 0013 and 0059): the
 * embedded default. `tags` and `error` are stored as JSON text and parsed here. Completion leases are set and compared by SQLite's clock in the statements. better-sqlite3 is synchronous: each method does its work before it returns its promise.
 */
const COLUMNS = `id, tenant_id, workspace_id, status, filename, size_bytes, sha256, mime_type, alt_text, tags, purpose,
  chunk_size_bytes, chunk_count, asset_id, error, created_at, updated_at, expires_at_ms, panel_id`;
const LIVE = `(completing_owner IS NOT NULL AND completing_until >= ${NOW})`;

/** An `uploads` row as SQLite gives it: `tags` and `error` JSON text. */
type RawRow = Omit<UploadRow, 'tags' | 'error'> & { tags: string | null; error: string | null };
const rowOf = (r: RawRow): UploadRow => ({
  ...r,
  tags: r.tags === null ? null : (JSON.parse(r.tags) as string[]),
  error: r.error === null ? null : (JSON.parse(r.error) as UploadError),
});
const json = (v: unknown): string | null => (v === null ? null : JSON.stringify(v));

export function createSqliteUploadStore(db: Database): UploadStore {
  const s = {
    insert: db.prepare(
      `INSERT INTO uploads (id, tenant_id, workspace_id, status, filename, size_bytes, sha256, mime_type, alt_text, tags, purpose,
        chunk_size_bytes, chunk_count, created_at, updated_at, expires_at_ms, panel_id)
       VALUES (@id, @tenant_id, @workspace_id, @status, @filename, @size_bytes, @sha256, @mime_type, @alt_text, @tags, @purpose,
        @chunk_size_bytes, @chunk_count, @created_at, @created_at, @expires_at_ms, @panel_id)`,
    ),
    byId: db.prepare(`SELECT ${COLUMNS} FROM uploads WHERE tenant_id = ? AND workspace_id = ? AND id = ? AND expires_at_ms > ?`),
    openOfFile: db.prepare(
      `SELECT ${COLUMNS} FROM uploads WHERE tenant_id = ? AND workspace_id = ? AND status = 'receiving' AND sha256 = ? AND size_bytes = ? AND filename = ?
         AND chunk_size_bytes = ? AND expires_at_ms > ? ORDER BY created_at DESC LIMIT 1`,
    ),
    openCount: db.prepare(
      "SELECT COUNT(*) AS n FROM uploads WHERE tenant_id = ? AND workspace_id = ? AND status IN ('receiving', 'staged') AND expires_at_ms > ?",
    ),
    chunks: db.prepare('SELECT idx, size_bytes FROM upload_chunks WHERE upload_id = ? ORDER BY idx'),
    putChunk: db.prepare(
      'INSERT INTO upload_chunks (upload_id, idx, size_bytes) VALUES (?, ?, ?) ON CONFLICT(upload_id, idx) DO UPDATE SET size_bytes = excluded.size_bytes',
    ),
    touch: db.prepare('UPDATE uploads SET updated_at = ?, expires_at_ms = ? WHERE id = ?'),
    updateMeta: db.prepare('UPDATE uploads SET mime_type = ?, alt_text = ?, tags = ?, purpose = ?, panel_id = ? WHERE id = ?'),
    importedOfPanel: db.prepare(
      `SELECT ${COLUMNS} FROM uploads WHERE tenant_id = ? AND workspace_id = ? AND panel_id = ? AND status = 'imported' AND expires_at_ms > ? ORDER BY updated_at, id`,
    ),
    finish: db.prepare(
      `UPDATE uploads SET status = @status, asset_id = @asset_id, error = @error, updated_at = @at, expires_at_ms = @expires_at_ms,
         completing_owner = CASE WHEN @status = 'staged' THEN completing_owner END,
         completing_until = CASE WHEN @status = 'staged' THEN completing_until END
       WHERE id = @id AND (@owner IS NULL OR (completing_owner = @owner AND status IN ('receiving', 'staged', 'imported')))`,
    ),
    claim: db.prepare(
      `UPDATE uploads SET completing_owner = ?, completing_until = ${NOW} + ?
       WHERE id = ? AND status IN ('receiving', 'staged', 'imported') AND NOT ${LIVE}`,
    ),
    renew: db.prepare(
      `UPDATE uploads SET completing_until = ${NOW} + ? WHERE id = ? AND completing_owner = ? AND status IN ('receiving', 'staged', 'imported')`,
    ),
    release: db.prepare('UPDATE uploads SET completing_owner = NULL, completing_until = NULL WHERE id = ? AND completing_owner = ?'),
    completing: db.prepare(`SELECT 1 FROM uploads WHERE id = ? AND ${LIVE}`),
    abort: db.prepare(
      `UPDATE uploads SET status = 'aborted', asset_id = NULL, error = NULL, updated_at = ?, expires_at_ms = ?, completing_owner = NULL, completing_until = NULL
       WHERE id = ? AND status IN ('receiving', 'staged') AND NOT ${LIVE}`,
    ),
    dropChunks: db.prepare('DELETE FROM upload_chunks WHERE upload_id = ?'),
    expired: db.prepare(`SELECT id FROM uploads WHERE expires_at_ms <= ? AND NOT ${LIVE} ORDER BY expires_at_ms LIMIT ?`),
    remove: db.prepare('DELETE FROM uploads WHERE id = ?'),
    exists: db.prepare('SELECT 1 FROM uploads WHERE id = ?'),
  };
  const usage = storageUsageQuery(db);
  const insert = db.transaction((u: NewUpload, quota: QuotaCheck | undefined): void => {
    if (quota) enforceQuota(quota, usage(u.tenant_id, quota.nowMs), u.size_bytes);
    s.insert.run({ ...u, tags: json(u.tags) });
  });
  const finish = db.transaction((id: string, f: UploadFinish, owner: string | null): boolean => {
    if (s.finish.run({ ...f, error: json(f.error), id, owner }).changes === 0) return false;
    s.dropChunks.run(id);
    return true;
  });
  const abort = db.transaction((id: string, at: string, expiresAtMs: number): boolean => {
    if (s.abort.run(at, expiresAtMs, id).changes === 0) return false;
    s.dropChunks.run(id);
    return true;
  });
  return {
    insert: async (u: NewUpload, o) => insert.immediate(u, o?.quota),
    async byId(scope, id, nowMs) {
      const r = s.byId.get(scope.tenantId, scope.workspaceId, id.toLowerCase(), nowMs) as RawRow | undefined;
      return r && rowOf(r);
    },
    async openOfFile(scope, f, nowMs) {
      const r = s.openOfFile.get(scope.tenantId, scope.workspaceId, f.sha256, f.size_bytes, f.filename, f.chunk_size_bytes, nowMs) as
        RawRow | undefined;
      return r && rowOf(r);
    },
    openCount: async (scope, nowMs) => (s.openCount.get(scope.tenantId, scope.workspaceId, nowMs) as { n: number }).n,
    chunks: async (id) => s.chunks.all(id) as { idx: number; size_bytes: number }[],
    putChunk: async (id, idx, sizeBytes) => void s.putChunk.run(id, idx, sizeBytes),
    updateMeta: async (id, m) => void s.updateMeta.run(m.mime_type, m.alt_text, json(m.tags), m.purpose, m.panel_id, id),
    importedOfPanel: async (scope, panelId, nowMs) =>
      (s.importedOfPanel.all(scope.tenantId, scope.workspaceId, panelId.toLowerCase(), nowMs) as RawRow[]).map(rowOf),
    touch: async (id, at, expiresAtMs) => void s.touch.run(at, expiresAtMs, id),
    finish: async (id, f, owner) => finish.immediate(id, f, owner ?? null),
    claimCompletion: async (id, owner, leaseMs) => s.claim.run(owner, leaseMs, id).changes === 1,
    renewCompletion: async (id, owner, leaseMs) => s.renew.run(leaseMs, id, owner).changes === 1,
    releaseCompletion: async (id, owner) => void s.release.run(id, owner),
    isCompleting: async (id) => s.completing.get(id) !== undefined,
    abort: async (id, f) => abort.immediate(id, f.at, f.expires_at_ms),
    expired: async (nowMs, limit = 500) => (s.expired.all(nowMs, limit) as { id: string }[]).map((r) => r.id),
    remove: async (id) => void s.remove.run(id),
    exists: async (id) => s.exists.get(id) !== undefined,
  };
}
