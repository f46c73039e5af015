import type { UploadSession } from '../../shared/schemas/upload.ts';
import { cleanFileName } from '../../shared/schemas/common.ts';
import type { UploadRow } from '../db/ports/upload-store.ts';
import { ServiceError } from '../errors.ts';
import type { UserMetadata } from './import.ts';

/** The `{code, field, message}` JSON of a failed session's `error` column, or null. */
export function parseError(text: string | null): UploadSession['error'] {
  if (!text) return null;
  const e = JSON.parse(text) as { code: string; field: string | null; message: string };
  return { code: e.code, field: e.field, message: e.message };
}

/**
 * The wire shape of a session (shared/schemas/upload.ts).
 * @param chunks the chunks received so far (only read while receiving: a staged or imported session has them all)
 */
export function sessionView(row: UploadRow, chunks: { idx: number; size_bytes: number }[], resumed: boolean): UploadSession {
  const done = row.status === 'staged' || row.status === 'imported';
  return {
    upload_id: row.id,
    workspace_id: row.workspace_id,
    status: row.status,
    filename: cleanFileName(row.filename),
    size_bytes: row.size_bytes,
    sha256: row.sha256,
    chunk_size_bytes: row.chunk_size_bytes,
    chunk_count: row.chunk_count,
    received_chunks: done ? Array.from({ length: row.chunk_count }, (_, i) => i) : chunks.map((c) => c.idx),
    received_bytes: done ? row.size_bytes : chunks.reduce((n, c) => n + c.size_bytes, 0),
    asset_id: row.asset_id,
    error: parseError(row.error),
    expires_at: new Date(row.expires_at_ms).toISOString(),
    resumed,
  };
}

/** The user metadata a session's import takes. */
export const userOf = (row: UploadRow): UserMetadata => ({
  filename: row.filename,
  alt_text: row.alt_text ?? undefined,
  tags: row.tags ? (JSON.parse(row.tags) as string[]) : undefined,
  purpose: row.purpose ?? undefined,
});

/** `conflict` for a complete of a failed or aborted session. */
export const closedError = (row: UploadRow): ServiceError =>
  new ServiceError(
    'conflict',
    'args.upload_id',
    `upload is ${row.status}${row.error ? ` (${parseError(row.error)?.message})` : ''}; start a new one with begin`,
  );
