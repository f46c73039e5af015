import type { ImportedAsset } from '../../shared/schemas/import.ts';
import type { UploadCompleteArgs, UploadSession } from '../../shared/schemas/upload.ts';
import { missingChunks } from '../../shared/upload-chunks.ts';
import type { UploadRow, UploadStatus, UploadStore } from '../db/ports/upload-store.ts';
import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { StagingStore } from '../storage/staging.ts';
import type { LibraryDeps } from './deps.ts';
import type { ImportSlot } from './image-pool.ts';
import { storeAsset } from './import.ts';
import { holdCompletion, type CompletionHold } from './upload-lease.ts';
import { closedError, userOf } from './upload-view.ts';

/** The slice of the upload service a completion works with (upload.ts builds it). */
export interface CompletionDeps {
  library: LibraryDeps;
  uploads: UploadStore;
  staging: StagingStore;
  /** how long a finished (staged, imported or failed) session is kept after its last change, ms */
  ttlMs: number;
  /** lease of a `complete` in progress, ms (upload-lease.ts) */
  leaseMs: number;
  /** epoch ms */
  now(): number;
  log: Logger;
  /** the wire shape of a session row */
  view: (row: UploadRow) => Promise<UploadSession>;
  /** the session of `id` in this scope; @throws ServiceError(not_found) when absent or expired */
  load: (scope: Scope, id: string) => Promise<UploadRow>;
}

/** `complete` of the upload service: the session after it, and the asset when it imported. */
export type UploadCompletion = (scope: Scope, args: UploadCompleteArgs) => Promise<{ session: UploadSession; asset: ImportedAsset | null }>;

/**
 * Build `complete`: check every chunk arrived, assemble the parts, verify size and sha256 against what
 * `begin` declared, record the verified file as `staged`, then (with `import`) import it through
 * `storeAsset` and record the asset. An asset exists only after verification, so an interrupted upload
 * never leaves a partial asset. One completion at a time holds an upload through a lease in its row
 * (upload-lease.ts), whichever process it runs on: a second waits and answers with the first one's
 * result, and a retry after a crash takes over once the lease lapsed. Every write checks the hold
 * first, so a completion that stalled past its lease changes nothing another process decided since.
 * @throws ServiceError conflict (missing chunks, size or sha256 mismatch, the upload changed meanwhile,
 *   failed or aborted), not_found (unknown upload, staged bytes gone), and the import's own errors
 */
export function createUploadCompletion(deps: CompletionDeps): UploadCompletion {
  const { library, uploads, staging, view, load } = deps;
  const iso = (ms: number): string => new Date(ms).toISOString();

  /** Move the session to `status` under the completion `hold` (checked first). @returns false when the hold no longer owns it */
  const finish = async (
    row: UploadRow,
    hold: CompletionHold,
    status: UploadStatus,
    f: { asset_id?: string | null; error?: ServiceError | null } = {},
  ): Promise<boolean> => {
    hold.check();
    const now = deps.now();
    const error = f.error ? { code: f.error.code, field: f.error.field, message: f.error.message } : null;
    const at = { at: iso(now), expires_at_ms: now + deps.ttlMs };
    return uploads.finish(row.id, { status, asset_id: f.asset_id ?? null, error, ...at }, hold.owner);
  };

  /** Verification or import failed: discard the bytes, keep the row (with the error) until it expires. */
  const fail = async (row: UploadRow, hold: CompletionHold, error: ServiceError): Promise<never> => {
    if (await finish(row, hold, 'failed', { error })) await staging.remove(row.id);
    throw error;
  };

  /**
   * Record the import under the hold. When the hold lost the upload meanwhile (it stalled past its
   * lease): the same answer if another completion recorded this asset, else `conflict` (aborted
   * meanwhile; the stored asset stays, as an asset imported before an abort does).
   */
  const recordImport = async (scope: Scope, row: UploadRow, hold: CompletionHold, asset: ImportedAsset): Promise<void> => {
    if (await finish(row, hold, 'imported', { asset_id: asset.asset_id })) return;
    const now = await uploads.byId(scope, row.id, deps.now());
    if (now?.status === 'imported' && now.asset_id === asset.asset_id) return;
    throw new ServiceError(
      'conflict',
      'args.upload_id',
      `upload is ${now?.status ?? 'gone'}: it changed while this completion stalled; asset ${asset.asset_id} was stored and stays`,
    );
  };

  const importStaged = async (scope: Scope, row: UploadRow, bytes: Buffer, slot: ImportSlot | null): Promise<ImportedAsset> => {
    const { asset } = await storeAsset(library, scope, {
      bytes,
      field: 'args.upload_id',
      source: 'upload',
      allowVideo: true,
      user: userOf(row),
      admission: slot ?? undefined,
      fromUpload: row.id,
    });
    return asset;
  };

  return async (scope, args) => {
    const first = await load(scope, args.upload_id);
    if (first.status === 'failed' || first.status === 'aborted') throw closedError(first);
    // Admission before anything changes: a `busy` refusal leaves the upload as it was, so the same
    // complete can be retried (parts not yet assembled, nothing imported).
    const slot = args.import ? library.images.admit(scope.tenantId) : null;
    let hold: CompletionHold | null = null;
    try {
      const open = async (): Promise<boolean> => {
        const r = await uploads.byId(scope, first.id, deps.now());
        return !!r && r.status !== 'failed' && r.status !== 'aborted';
      };
      const leaseMs = deps.leaseMs;
      hold = await holdCompletion(uploads, first.id, { leaseMs, waitMs: 2 * leaseMs + 1000, exists: open });
      // the row as it is now that this call holds it (another completion may have finished it meanwhile)
      const row = await load(scope, first.id);
      if (!hold || row.status === 'failed' || row.status === 'aborted') throw closedError(row);
      if (row.status === 'staged' || row.status === 'imported') {
        if (!args.import) return { session: await view(row), asset: null };
        const bytes = await staging.readFile(row.id);
        if (!bytes) throw new ServiceError('not_found', 'args.upload_id', `the bytes of upload ${row.id} are no longer staged`);
        hold.check();
        const asset = await importStaged(scope, row, bytes, slot);
        if (row.status === 'staged' || row.asset_id !== asset.asset_id) await recordImport(scope, row, hold, asset);
        return { session: await view(await load(scope, row.id)), asset };
      }
      const missing = missingChunks(
        row.chunk_count,
        (await uploads.chunks(row.id)).map((c) => c.idx),
      );
      if (missing.length > 0) {
        throw new ServiceError(
          'conflict',
          'args.upload_id',
          `${missing.length} of ${row.chunk_count} chunks are missing (indexes ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ', …' : ''}); send them, then complete`,
          { details: { missing_chunks: missing } },
        );
      }
      const whole = await staging.assemble(row.id, row.chunk_count);
      if (whole.sizeBytes !== row.size_bytes) {
        return await fail(
          row,
          hold,
          new ServiceError(
            'conflict',
            'args.upload_id',
            `received ${whole.sizeBytes} bytes but begin declared size_bytes ${row.size_bytes}; the upload was discarded, start again with begin`,
          ),
        );
      }
      if (whole.sha256 !== row.sha256) {
        return await fail(
          row,
          hold,
          new ServiceError(
            'conflict',
            'args.upload_id',
            `received bytes have sha256 ${whole.sha256} but begin declared ${row.sha256}; the upload was discarded, start again with begin`,
          ),
        );
      }
      // The verified file is recorded before the import starts: if the import fails for a transient reason
      // (a lock held past busy_timeout) or the process dies, a retry of complete imports the staged file.
      if (!(await finish(row, hold, 'staged')))
        throw new ServiceError(
          'conflict',
          'args.upload_id',
          'upload changed while this completion stalled (aborted or taken over); ask status',
        );
      if (!args.import) return { session: await view(await load(scope, row.id)), asset: null };
      await library.testHooks?.pause('upload-import');
      let asset: ImportedAsset;
      hold.check();
      try {
        const bytes = await staging.readFile(row.id);
        if (!bytes) throw new ServiceError('not_found', 'args.upload_id', `the bytes of upload ${row.id} are no longer staged`);
        asset = await importStaged(scope, row, bytes, slot);
      } catch (e) {
        // The file itself is bad (not an image, corrupt, over a limit): discard it. Over the tenant's storage
        // quota the file is fine: it stays staged, so a complete after a delete imports it.
        if (e instanceof ServiceError && e.code !== 'not_found' && e.code !== 'quota_exceeded') return await fail(row, hold, e);
        throw e;
      }
      await recordImport(scope, row, hold, asset);
      deps.log.info({ mod: 'upload', upload_id: row.id, asset_id: asset.asset_id, bytes: row.size_bytes }, 'upload imported');
      return { session: await view(await load(scope, row.id)), asset };
    } finally {
      await hold?.release();
      slot?.release();
    }
  };
}
