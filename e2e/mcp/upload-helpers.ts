import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { chunkCount, chunkRange } from '../../shared/upload-chunks.ts';
import type { App } from '../../server/app.ts';
import type { CallResult, TestClient } from './harness.ts';

export const APP = 'svc_asset_upload_app';

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Declare a file on the upload channel; asserts success and returns the session. */
export async function begin(
  c: TestClient,
  bytes: Buffer,
  filename: string,
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const r = await c.call(APP, 'begin', { filename, size_bytes: bytes.length, sha256: sha256(bytes), ...extra });
  expect(r.error).toBeUndefined();
  return r.structured;
}

/** Send chunk `index` of `bytes` as the server's chunk plan cuts it. */
export function sendChunk(
  c: TestClient,
  id: string,
  bytes: Buffer,
  chunkSize: number,
  index: number,
  extra: Record<string, unknown> = {},
): Promise<CallResult> {
  const { start, end } = chunkRange(bytes.length, chunkSize, index);
  return c.call(APP, 'chunk', { upload_id: id, index, data: bytes.subarray(start, end).toString('base64'), ...extra });
}

/**
 * Full transfer: begin, every chunk (in `order`, default ascending), complete. Returns the complete
 * call's result (not asserted, so callers can test failures).
 */
export async function uploadFile(
  c: TestClient,
  bytes: Buffer,
  filename: string,
  opts: { meta?: Record<string, unknown>; declared?: Buffer; order?: 'asc' | 'desc'; import?: boolean } = {},
): Promise<{ id: string; complete: CallResult }> {
  const declared = opts.declared ?? bytes;
  const s = await c.call(APP, 'begin', { filename, size_bytes: declared.length, sha256: sha256(declared), ...opts.meta });
  expect(s.error).toBeUndefined();
  const id = s.structured.upload_id as string;
  const size = s.structured.chunk_size_bytes as number;
  const idx = Array.from({ length: chunkCount(bytes.length, size) }, (_, i) => i);
  if (opts.order === 'desc') idx.reverse();
  for (const i of idx) {
    const r = await sendChunk(c, id, bytes, size, i);
    expect(r.error).toBeUndefined();
  }
  const complete = await c.call(APP, 'complete', { upload_id: id, ...(opts.import === false ? { import: false } : {}) });
  return { id, complete };
}

/** Upload ids with bytes in a server's staging area (the data dir's `staging/`, or S3 under test:scale). */
export function stagedIds(app: App): Promise<string[]> {
  return app.staging.list();
}
