import type { Scope } from '../../domain/scope.ts';
import type { QuotaCheck } from './storage-quota.ts';

export type UploadStatus = 'receiving' | 'staged' | 'imported' | 'failed' | 'aborted';

/** Why a session failed: the service error its completion ended with (`field` a JSON path or null). */
export interface UploadError {
  code: string;
  field: string | null;
  message: string;
}

/** One upload session (chunked upload channel, spec §4.7). */
export interface UploadRow {
  /** lower-case UUID; also the attachment_id once staged */
  id: string;
  tenant_id: string;
  workspace_id: string;
  status: UploadStatus;
  filename: string;
  /** declared file size, bytes > 0 */
  size_bytes: number;
  /** declared by the client, lower-case hex */
  sha256: string;
  mime_type: string | null;
  alt_text: string | null;
  /** the user's tags as given (deduplicated by the caller), or null when not given */
  tags: string[] | null;
  purpose: string | null;
  /** bytes per chunk (the last may be shorter) */
  chunk_size_bytes: number;
  chunk_count: number;
  /** set when imported (no foreign key: the asset may be deleted later) */
  asset_id: string | null;
  /** set when failed */
  error: UploadError | null;
  /** ISO 8601 UTC with ms */
  created_at: string;
  /** ISO 8601 UTC with ms */
  updated_at: string;
  /** epoch ms; invisible to scoped reads from then on, swept (row and staged bytes) after it */
  expires_at_ms: number;
  /** the upload panel instance that began the session (null for other clients) */
  panel_id: string | null;
}

export type NewUpload = Omit<UploadRow, 'asset_id' | 'error' | 'updated_at'>;

/** The user metadata of a session, replaced on resume. */
export type UploadMeta = Pick<UploadRow, 'mime_type' | 'alt_text' | 'tags' | 'purpose' | 'panel_id'>;

/** A session's final state. */
export interface UploadFinish {
  status: UploadStatus;
  asset_id: string | null;
  error: UploadError | null;
  /** ISO 8601 time */
  at: string;
  /** epoch ms */
  expires_at_ms: number;
}

/**
 * Port: upload sessions and the record of their received chunks (the chunk bytes live in the staging
 * store, never here). Every lookup by id with a scope takes the scope first, so a session of another
 * tenant or workspace behaves exactly like a missing one; expired sessions (`expires_at_ms` ≤ now) are
 * invisible to scoped reads even before the sweeper removes them. Methods without a scope act on the
 * id of a session the caller already found through a scoped read (or the sweeper). Completing a session
 * is a lease in its row (`claimCompletion`): one process at a time, by the database's clock, renewed
 * while it works; a lease whose process died lapses and another complete takes over. Rows are plain
 * shapes, the same on every backend (`tags` and `error` parsed; times ISO 8601 UTC with ms, or epoch ms
 * where the name ends in `_ms`); each adapter parses its own columns. Implementations:
 * SQLite (server/db/sqlite/uploads.ts) and PostgreSQL (server/db/postgres/uploads.ts); both pass
 * server/db/contract/upload-store-contract.ts.
 */
export interface UploadStore {
  /**
   * Insert a new session (`updated_at` = `created_at`). With `o.quota`, the same transaction first checks
   * the tenant's storage quota (ports/storage-quota.ts) against `u.size_bytes`, serialised with the
   * tenant's other checked writes.
   * @throws the driver's unique-violation error when `id` already exists
   * @throws QuotaExceededError when `o.quota` refuses it; nothing is written
   */
  insert(u: NewUpload, o?: { quota?: QuotaCheck | undefined }): Promise<void>;
  /** The live (not expired at `nowMs`) session `id` of `scope`, or undefined. */
  byId(scope: Scope, id: string, nowMs: number): Promise<UploadRow | undefined>;
  /** The newest open (receiving, live) session for the same file (same name, size, sha256, chunk size): resume target. */
  openOfFile(
    scope: Scope,
    f: { sha256: string; size_bytes: number; filename: string; chunk_size_bytes: number },
    nowMs: number,
  ): Promise<UploadRow | undefined>;
  /** Open sessions of a workspace: live and receiving, or staged (an attachment not imported yet). */
  openCount(scope: Scope, nowMs: number): Promise<number>;
  /** The chunks received so far, by index. */
  chunks(id: string): Promise<{ idx: number; size_bytes: number }[]>;
  /** Record chunk `idx` (bytes); a chunk sent again replaces its size. */
  putChunk(id: string, idx: number, sizeBytes: number): Promise<void>;
  /** Replace the user metadata of a session (on resume). */
  updateMeta(id: string, m: UploadMeta): Promise<void>;
  /** Live imported sessions begun from one upload panel instance, in completion order (updated_at, id). */
  importedOfPanel(scope: Scope, panelId: string, nowMs: number): Promise<UploadRow[]>;
  /** Extend a session's life after activity. */
  touch(id: string, at: string, expiresAtMs: number): Promise<void>;
  /**
   * Move a session to a final status; its chunk records go, in the same transaction. With `owner`, only
   * while that completion lease is its own (`claimCompletion`): `staged` keeps the lease, any other
   * status releases it.
   * @returns whether the session changed (false: `owner` no longer holds it, or no such session)
   */
  finish(id: string, f: UploadFinish, owner?: string): Promise<boolean>;
  /**
   * Take the completion lease of a receiving, staged or imported session for `owner`, for `leaseMs` from
   * now by the database's clock, unless another owner's lease is live.
   * @returns false when another completion holds it, or the session is failed, aborted or gone
   */
  claimCompletion(id: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Extend `owner`'s completion lease to `leaseMs` from now; false when it is no longer `owner`'s (lapsed and taken, aborted, finished). */
  renewCompletion(id: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Give up `owner`'s completion lease (a completion that failed before its end); nothing when it is not `owner`'s. */
  releaseCompletion(id: string, owner: string): Promise<void>;
  /** Whether a completion lease on the session is live now (database clock). */
  isCompleting(id: string): Promise<boolean>;
  /**
   * Abort a receiving or staged session unless a completion lease on it is live (its chunk records go).
   * @returns false (nothing changed) when a completion holds it, or it is no longer receiving or staged
   */
  abort(id: string, f: Omit<UploadFinish, 'status' | 'asset_id' | 'error'>): Promise<boolean>;
  /** Ids of sessions whose time is up at `nowMs` (any status) and that no live completion holds, oldest expiry first, at most `limit` (default 500). */
  expired(nowMs: number, limit?: number): Promise<string[]>;
  /** Delete a session and its chunk records. */
  remove(id: string): Promise<void>;
  /** Whether any session (any scope, any status) holds this id — for orphan detection in the staging store. */
  exists(id: string): Promise<boolean>;
}
