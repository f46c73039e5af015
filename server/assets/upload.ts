import { randomUUID } from 'node:crypto';
import type { ImportedAsset } from '../../shared/schemas/import.ts';
import {
  UPLOAD_EXTENSIONS,
  UPLOAD_MIME_TYPES,
  type UploadBeginArgs,
  type UploadChunkArgs,
  type UploadCompleteArgs,
  type UploadLimits,
  type UploadSession,
} from '../../shared/schemas/upload.ts';
import { chunkCount, chunkRange } from '../../shared/upload-chunks.ts';
import type { UploadRow, UploadStore } from '../db/ports/upload-store.ts';
import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { StagingStore } from '../storage/staging.ts';
import type { LibraryDeps } from './deps.ts';
import type { AttachmentResolver } from './import.ts';
import { toImportedAsset } from './present.ts';
import { asQuotaError, quotaCheck, tenantQuota } from './quota.ts';
import { createUploadCompletion } from './upload-complete.ts';
import { sessionView, userOf } from './upload-view.ts';

/** Limits of the upload channel, from config. */
export interface UploadPolicy {
  /** raw bytes per chunk, ≤ 512 KiB */
  chunkSizeBytes: number;
  /** largest accepted file, bytes (never above the import limit, since uploads import through storeAsset) */
  maxFileBytes: number;
  /** a session not touched for this long (and a staged file this long after verification) is discarded, ms */
  ttlMs: number;
  /** open (receiving) sessions allowed per workspace */
  maxOpenSessions: number;
  /** lease of a `complete` in progress, ms (upload-lease.ts) */
  completionLeaseMs: number;
}

export interface UploadDeps {
  library: LibraryDeps;
  uploads: UploadStore;
  staging: StagingStore;
  policy: UploadPolicy;
  /** epoch ms; injectable for tests of expiry */
  now(): number;
  log: Logger;
}

/** The upload use cases; their state is in the upload rows, so every process of a database shares it. */
export interface UploadService {
  limits(): UploadLimits;
  begin(scope: Scope, args: UploadBeginArgs): Promise<UploadSession>;
  chunk(scope: Scope, args: UploadChunkArgs): Promise<UploadSession>;
  status(scope: Scope, uploadId: string): Promise<UploadSession>;
  complete(scope: Scope, args: UploadCompleteArgs): Promise<{ session: UploadSession; asset: ImportedAsset | null }>;
  abort(scope: Scope, uploadId: string): Promise<UploadSession>;
  /** Imported uploads of one upload panel instance with their assets (a remounted panel restores its list). */
  listPanel(scope: Scope, panelId: string): Promise<{ session: UploadSession; asset: ImportedAsset }[]>;
  /** Delete expired sessions with their staged bytes, and staging directories no session owns. */
  sweep(): Promise<{ expired: number; orphans: number }>;
  /** `svc_asset_import` attachments: a staged or imported upload of the same scope. */
  resolveAttachment: AttachmentResolver;
}

const ext = (name: string): string => (/\.[a-z0-9]+$/i.exec(name)?.[0] ?? '').toLowerCase();

/**
 * Build the upload service: sessions declared with name, size and sha256; base64 chunks of at most
 * `chunkSizeBytes` stored in the staging directory; on `complete` (upload-complete.ts) the parts are
 * assembled, size and sha256 verified, and the file imported through `storeAsset` (dedupe, HEIC → PNG,
 * user metadata, video allowed). An asset exists only after verification, so an interrupted upload never
 * leaves a partial asset; expired sessions are swept with their bytes. One `complete` at a time holds an
 * upload through a lease in its row (upload-lease.ts), whichever process it runs on: a second waits and
 * answers with the first one's result, a retry after a crash takes over once the lease lapsed, and an
 * `abort` while a completion holds the upload answers `conflict` (the completion goes on and imports):
 * an abort never lands under an import that then overwrites it.
 * Chunked-transfer pattern: ext-apps `docs/patterns.md` ("chunked tool calls"), tus.io resumption
 * semantics (offsets known to the server, client resends what is missing).
 */
export function createUploadService(deps: UploadDeps): UploadService {
  const { uploads, staging, policy, library } = deps;
  const iso = (ms: number): string => new Date(ms).toISOString();

  const view = async (row: UploadRow, resumed = false): Promise<UploadSession> =>
    sessionView(row, row.status === 'receiving' ? await uploads.chunks(row.id) : [], resumed);

  const load = async (scope: Scope, id: string): Promise<UploadRow> => {
    const row = await uploads.byId(scope, id, deps.now());
    if (!row) throw new ServiceError('not_found', 'args.upload_id', `upload ${id} does not exist in this workspace or has expired`);
    return row;
  };

  return {
    limits: () => ({
      max_file_bytes: policy.maxFileBytes,
      chunk_size_bytes: policy.chunkSizeBytes,
      accepted_mime_types: [...UPLOAD_MIME_TYPES],
      accepted_extensions: [...UPLOAD_EXTENSIONS],
      session_ttl_ms: policy.ttlMs,
    }),

    async begin(scope, args) {
      if (args.size_bytes > policy.maxFileBytes) {
        throw new ServiceError(
          'invalid_argument',
          'args.size_bytes',
          `is ${args.size_bytes} bytes; the largest accepted file is ${policy.maxFileBytes} bytes`,
        );
      }
      const mimeOk = args.mime_type ? (UPLOAD_MIME_TYPES as readonly string[]).includes(args.mime_type.toLowerCase()) : false;
      if (!mimeOk && !(UPLOAD_EXTENSIONS as readonly string[]).includes(ext(args.filename))) {
        throw new ServiceError(
          'invalid_argument',
          args.mime_type ? 'args.mime_type' : 'args.filename',
          `must be an image (JPEG, PNG, WebP, GIF, AVIF, TIFF, HEIC/HEIF, SVG) or a video (MP4, WebM, MOV); got ${args.mime_type || ext(args.filename) || 'no type'}`,
        );
      }
      const now = deps.now();
      const sha256 = args.sha256.toLowerCase();
      // PostgreSQL text cannot hold NUL; the other characters stay so the import can say what it changed
      const file = {
        sha256,
        size_bytes: args.size_bytes,
        filename: args.filename.replaceAll('\u0000', ''),
        chunk_size_bytes: policy.chunkSizeBytes,
      };
      const open = await uploads.openOfFile(scope, file, now);
      if (open) {
        // Resume; metadata typed since the first attempt (e.g. alt text edited before Retry) wins.
        await uploads.updateMeta(open.id, {
          mime_type: args.mime_type ?? open.mime_type,
          alt_text: args.alt_text !== undefined ? args.alt_text.trim() || null : open.alt_text,
          tags: args.tags !== undefined ? [...new Set(args.tags)] : open.tags,
          purpose: args.purpose !== undefined ? args.purpose || null : open.purpose,
          panel_id: args.panel_id?.toLowerCase() ?? open.panel_id,
        });
        await uploads.touch(open.id, iso(now), now + policy.ttlMs);
        return view((await uploads.byId(scope, open.id, now))!, true);
      }
      if ((await uploads.openCount(scope, now)) >= policy.maxOpenSessions) {
        throw new ServiceError(
          'conflict',
          null,
          `${policy.maxOpenSessions} uploads are already open (receiving, or staged and not imported) in this workspace; complete, import or abort some first (open sessions expire after ${policy.ttlMs} ms without activity)`,
        );
      }
      const id = randomUUID();
      const quota = quotaCheck((await tenantQuota(library, scope.tenantId)).limitBytes, now);
      await uploads
        .insert(
          {
            id,
            tenant_id: scope.tenantId,
            workspace_id: scope.workspaceId,
            status: 'receiving',
            ...file,
            mime_type: args.mime_type ?? null,
            alt_text: args.alt_text?.trim() || null,
            tags: args.tags ? [...new Set(args.tags)] : null,
            purpose: args.purpose || null,
            panel_id: args.panel_id?.toLowerCase() ?? null,
            chunk_count: chunkCount(args.size_bytes, policy.chunkSizeBytes),
            created_at: iso(now),
            expires_at_ms: now + policy.ttlMs,
          },
          { quota },
        )
        .catch((e: unknown) => {
          throw asQuotaError(e, 'args.size_bytes');
        });
      deps.log.info({ mod: 'upload', upload_id: id, bytes: args.size_bytes }, 'upload begun');
      return view((await uploads.byId(scope, id, now))!);
    },

    async listPanel(scope, panelId) {
      const out: { session: UploadSession; asset: ImportedAsset }[] = [];
      for (const row of await uploads.importedOfPanel(scope, panelId, deps.now())) {
        const asset = row.asset_id ? await library.assets.byId(scope, row.asset_id) : undefined;
        if (!asset) continue; // deleted since
        out.push({
          session: await view(row),
          asset: toImportedAsset(asset, await library.assets.renditions(asset.seq), library.urls, false),
        });
      }
      return out;
    },

    async chunk(scope, args) {
      const row = await load(scope, args.upload_id);
      if (row.status !== 'receiving')
        throw new ServiceError('conflict', 'args.upload_id', `upload is ${row.status}; chunks are accepted only while it is receiving`);
      if (await uploads.isCompleting(row.id))
        throw new ServiceError('conflict', 'args.upload_id', 'upload is being completed; chunks are no longer accepted');
      if (args.index >= row.chunk_count)
        throw new ServiceError(
          'invalid_argument',
          'args.index',
          `must be 0–${row.chunk_count - 1} (the upload has ${row.chunk_count} chunks of ${row.chunk_size_bytes} bytes)`,
        );
      const bytes = Buffer.from(args.data, 'base64');
      const { start, end } = chunkRange(row.size_bytes, row.chunk_size_bytes, args.index);
      if (bytes.length !== end - start) {
        throw new ServiceError(
          'invalid_argument',
          'args.data',
          `decodes to ${bytes.length} bytes; chunk ${args.index} of a ${row.size_bytes}-byte file must be exactly ${end - start} bytes (bytes ${start}–${end - 1})`,
        );
      }
      await staging.writePart(row.id, args.index, bytes);
      const now = deps.now();
      const after = await uploads.byId(scope, row.id, now);
      if (!after || after.status !== 'receiving') {
        // Aborted, completed or expired while the part was being written: drop just this part (a completed
        // upload's verified file stays; an aborted one's directory is already gone or swept with its row).
        await staging.removePart(row.id, args.index);
        throw new ServiceError('conflict', 'args.upload_id', `upload is ${after?.status ?? 'gone'}; the chunk was discarded`);
      }
      await uploads.putChunk(row.id, args.index, bytes.length);
      await uploads.touch(row.id, iso(now), now + policy.ttlMs);
      return view((await uploads.byId(scope, row.id, now))!);
    },

    status: async (scope, id) => view(await load(scope, id)),

    complete: createUploadCompletion({
      library,
      uploads,
      staging,
      ttlMs: policy.ttlMs,
      leaseMs: policy.completionLeaseMs,
      now: () => deps.now(),
      log: deps.log,
      view,
      load,
    }),

    async abort(scope, id) {
      const row = await load(scope, id);
      if (row.status === 'imported')
        throw new ServiceError('conflict', 'args.upload_id', `upload is already imported as asset ${row.asset_id}; the asset stays`);
      if (row.status === 'receiving' || row.status === 'staged') {
        const now = deps.now();
        // one conditional UPDATE: refused while a completion (of any process) holds the upload
        if (!(await uploads.abort(row.id, { at: iso(now), expires_at_ms: now + policy.ttlMs }))) {
          const after = await load(scope, row.id);
          if (after.status === 'imported')
            throw new ServiceError('conflict', 'args.upload_id', `upload is already imported as asset ${after.asset_id}; the asset stays`);
          if (after.status === 'receiving' || after.status === 'staged')
            throw new ServiceError(
              'conflict',
              'args.upload_id',
              'upload is being completed and can no longer be aborted; it will be imported (ask status)',
            );
        }
      }
      await staging.remove(row.id);
      return view(await load(scope, row.id));
    },

    async sweep() {
      const now = deps.now();
      let expired = 0;
      for (const id of await uploads.expired(now)) {
        await staging.remove(id);
        await uploads.remove(id);
        expired++;
      }
      let orphans = 0;
      for (const id of await staging.list()) {
        if (!(await uploads.exists(id))) {
          await staging.remove(id);
          orphans++;
        }
      }
      if (expired || orphans) deps.log.info({ mod: 'upload', expired, orphans }, 'upload sweep');
      return { expired, orphans };
    },

    async resolveAttachment(scope, attachmentId) {
      if (!/^[0-9a-f-]{36}$/i.test(attachmentId)) return null;
      const row = await uploads.byId(scope, attachmentId, deps.now());
      if (!row || (row.status !== 'staged' && row.status !== 'imported')) return null;
      const bytes = await staging.readFile(row.id);
      if (!bytes) return null;
      const imported = async (assetId: string): Promise<void> => {
        if (row.status !== 'staged') return;
        // no completion owner: a staged upload is only ever moved on by this or a `complete` (same result)
        const f = { status: 'imported' as const, asset_id: assetId, error: null, at: iso(deps.now()), expires_at_ms: row.expires_at_ms };
        await uploads.finish(row.id, f);
      };
      return { bytes, user: userOf(row), imported };
    },
  };
}
