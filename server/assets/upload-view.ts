import type { UploadSession } from '../../shared/schemas/upload.ts';
import { cleanFileName } from '../../shared/schemas/common.ts';
import type { UploadRow } from '../db/ports/upload-store.ts';
import { ServiceError } from '../errors.ts';
import type { UserMetadata } from './import.ts';

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
    error: row.error && { code: row.error.code, field: row.error.field, message: row.error.message },
    expires_at: new Date(row.expires_at_ms).toISOString(),
    resumed,
  };
}

/** The user metadata a session's import takes. */
export const userOf = (row: UploadRow): UserMetadata => ({
  filename: row.filename,
  alt_text: row.alt_text ?? undefined,
  tags: row.tags ?? undefined,
  purpose: row.purpose ?? undefined,
});

/** `conflict` for a complete of a failed or aborted session. */
export const closedError = (row: UploadRow): ServiceError =>
  new ServiceError(
    'conflict',
    'args.upload_id',
    `upload is ${row.status}${row.error ? ` (${row.error.message})` : ''}; start a new one with begin`,
  );
