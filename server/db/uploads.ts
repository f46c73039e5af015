import type { Database } from 'better-sqlite3';
import type { Scope } from '../domain/scope.ts';

export type UploadStatus = 'receiving' | 'staged' | 'imported' | 'failed' | 'aborted';

/** One row of `uploads`; `tags` and `error` still JSON text. */
export interface UploadRow {
  id: string;
  tenant_id: string;
  workspace_id: string;
  status: UploadStatus;
  filename: string;
  size_bytes: number;
  sha256: string;
  mime_type: string | null;
  alt_text: string | null;
  tags: string | null;
  purpose: string | null;
  chunk_size_bytes: number;
  chunk_count: number;
  asset_id: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  expires_at_ms: number;
  /** the upload panel instance that began the session (null for other clients) */
  panel_id: string | null;
}

export type NewUpload = Omit<UploadRow, 'asset_id' | 'error' | 'updated_at'>;

/**
 * Queries over upload sessions and their received chunks. Every lookup by id takes the scope first,
 * so a session of another tenant or workspace behaves exactly like a missing one. Expired sessions
 * (`expires_at_ms` ≤ now) are invisible to scoped reads even before the sweeper removes them.
 */
export function createUploadQueries(db: Database) {
  const s = {
    insert: db.prepare(
      `INSERT INTO uploads (id, tenant_id, workspace_id, status, filename, size_bytes, sha256, mime_type, alt_text, tags, purpose,
        chunk_size_bytes, chunk_count, created_at, updated_at, expires_at_ms, panel_id)
       VALUES (@id, @tenant_id, @workspace_id, @status, @filename, @size_bytes, @sha256, @mime_type, @alt_text, @tags, @purpose,
        @chunk_size_bytes, @chunk_count, @created_at, @created_at, @expires_at_ms, @panel_id)`,
    ),
    byId: db.prepare('SELECT * FROM uploads WHERE tenant_id = ? AND workspace_id = ? AND id = ? AND expires_at_ms > ?'),
    openOfFile: db.prepare(
      `SELECT * FROM uploads WHERE tenant_id = ? AND workspace_id = ? AND status = 'receiving' AND sha256 = ? AND size_bytes = ? AND filename = ?
         AND chunk_size_bytes = ? AND expires_at_ms > ? ORDER BY created_at DESC LIMIT 1`,
    ),
    openCount: db.prepare(
      "SELECT COUNT(*) AS n FROM uploads WHERE tenant_id = ? AND workspace_id = ? AND status = 'receiving' AND expires_at_ms > ?",
    ),
    chunks: db.prepare('SELECT idx, size_bytes FROM upload_chunks WHERE upload_id = ? ORDER BY idx'),
    putChunk: db.prepare(
      'INSERT INTO upload_chunks (upload_id, idx, size_bytes) VALUES (?, ?, ?) ON CONFLICT(upload_id, idx) DO UPDATE SET size_bytes = excluded.size_bytes',
    ),
    touch: db.prepare('UPDATE uploads SET updated_at = ?, expires_at_ms = ? WHERE id = ?'),
    updateMeta: db.prepare('UPDATE uploads SET mime_type = ?, alt_text = ?, tags = ?, purpose = ?, panel_id = ? WHERE id = ?'),
    importedOfPanel: db.prepare(
      "SELECT * FROM uploads WHERE tenant_id = ? AND workspace_id = ? AND panel_id = ? AND status = 'imported' AND expires_at_ms > ? ORDER BY updated_at, id",
    ),
    finish: db.prepare('UPDATE uploads SET status = ?, asset_id = ?, error = ?, updated_at = ?, expires_at_ms = ? WHERE id = ?'),
    dropChunks: db.prepare('DELETE FROM upload_chunks WHERE upload_id = ?'),
    expired: db.prepare('SELECT id FROM uploads WHERE expires_at_ms <= ? ORDER BY expires_at_ms LIMIT ?'),
    remove: db.prepare('DELETE FROM uploads WHERE id = ?'),
    exists: db.prepare('SELECT 1 FROM uploads WHERE id = ?'),
  };
  return {
    insert: (u: NewUpload): void => void s.insert.run(u),
    /** The live (not expired) session `id` of `scope`, or undefined. */
    byId: (scope: Scope, id: string, nowMs: number) =>
      s.byId.get(scope.tenantId, scope.workspaceId, id.toLowerCase(), nowMs) as UploadRow | undefined,
    /** The newest open session for the same file (same name, size, sha256, chunk size): resume target. */
    openOfFile: (scope: Scope, f: { sha256: string; size_bytes: number; filename: string; chunk_size_bytes: number }, nowMs: number) =>
      s.openOfFile.get(scope.tenantId, scope.workspaceId, f.sha256, f.size_bytes, f.filename, f.chunk_size_bytes, nowMs) as
        UploadRow | undefined,
    /** Open (receiving, not expired) sessions of a workspace. */
    openCount: (scope: Scope, nowMs: number): number => (s.openCount.get(scope.tenantId, scope.workspaceId, nowMs) as { n: number }).n,
    chunks: (id: string) => s.chunks.all(id) as { idx: number; size_bytes: number }[],
    putChunk: (id: string, idx: number, sizeBytes: number): void => void s.putChunk.run(id, idx, sizeBytes),
    /** Replace the user metadata of a session (on resume). */
    updateMeta: (
      id: string,
      m: { mime_type: string | null; alt_text: string | null; tags: string | null; purpose: string | null; panel_id: string | null },
    ): void => void s.updateMeta.run(m.mime_type, m.alt_text, m.tags, m.purpose, m.panel_id, id),
    /** Live imported sessions begun from one upload panel instance, in completion order. */
    importedOfPanel: (scope: Scope, panelId: string, nowMs: number) =>
      s.importedOfPanel.all(scope.tenantId, scope.workspaceId, panelId.toLowerCase(), nowMs) as UploadRow[],
    /** Extend a session's life after activity. */
    touch: (id: string, at: string, expiresAtMs: number): void => void s.touch.run(at, expiresAtMs, id),
    /** Move a session to a final status; its chunk rows go (the bytes are discarded by the caller). */
    finish: db.transaction(
      (id: string, f: { status: UploadStatus; asset_id: string | null; error: string | null; at: string; expires_at_ms: number }): void => {
        s.finish.run(f.status, f.asset_id, f.error, f.at, f.expires_at_ms, id);
        s.dropChunks.run(id);
      },
    ),
    /** Ids of sessions whose time is up (any status), oldest first. */
    expired: (nowMs: number, limit = 500) => (s.expired.all(nowMs, limit) as { id: string }[]).map((r) => r.id),
    /** Delete a session row and its chunk rows (cascade). */
    remove: (id: string): void => void s.remove.run(id),
    /** Whether any row (any scope, any status) holds this id — for orphan detection in the staging dir. */
    exists: (id: string): boolean => s.exists.get(id) !== undefined,
  };
}
export type UploadQueries = ReturnType<typeof createUploadQueries>;
