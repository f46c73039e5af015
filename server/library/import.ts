import { randomUUID } from 'node:crypto';
import type { ImportArgs, ImportedAsset } from '../../shared/schemas/asset.ts';
import type { AssetRow } from '../db/assets.ts';
import { deriveFilename, taxonomyForPurpose } from '../domain/asset-meta.ts';
import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import { sha256Hex } from '../storage/blob-store.ts';
import type { LibraryDeps } from './deps.ts';
import { fetchUrl } from './fetch-url.ts';
import { makeRenditions, normaliseOriginal } from './media.ts';
import { toImportedAsset } from './present.ts';

/** User-authored metadata; stays authoritative during enrichment (spec §2 Imported asset). */
export interface UserMetadata {
  filename?: string | undefined;
  alt_text?: string | undefined;
  tags?: string[] | undefined;
  purpose?: string | undefined;
}

/** One import request after the bytes are in hand. */
export interface StoreInput {
  bytes: Buffer;
  /** JSON path named in errors about the bytes (`args.data`, `args.url`, `args.attachments[0]`) */
  field: string;
  source: 'import_url' | 'import_data' | 'upload' | 'generated' | 'seed' | 'cli';
  sourceUrl?: string | undefined;
  user: UserMetadata;
  /** category/subtype when the caller knows better than the purpose mapping (generation) */
  category?: string | undefined;
  subtype?: string | undefined;
  provenance?: Record<string, unknown> | undefined;
  allowVideo?: boolean | undefined;
  /**
   * Runs inside the transaction that inserts the asset (not for a deduplicated hit); throwing rolls the
   * insert back. Generation charges credits here so the charge and the asset commit together.
   */
  onInsert?: ((stored: { id: string; seq: number }) => void) | undefined;
}

function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Store bytes as a library asset: sniff and validate, convert HEIC/HEIF to PNG, derive renditions,
 * write blobs, insert the row (FTS kept by triggers) and notify enrichment. Identical bytes already in
 * the workspace return the existing asset with `deduplicated: true` (also under concurrent imports).
 * @throws ServiceError invalid_argument | conversion_failed (nothing is stored on error)
 */
export async function storeAsset(deps: LibraryDeps, scope: Scope, input: StoreInput): Promise<{ asset: ImportedAsset; row: AssetRow }> {
  const { assets, blobs, urls, policy } = deps;
  if (input.bytes.length === 0) throw new ServiceError('invalid_argument', input.field, 'is empty');
  if (input.bytes.length > policy.maxImportBytes) {
    throw new ServiceError('invalid_argument', input.field, `is ${input.bytes.length} bytes; the limit is ${policy.maxImportBytes} bytes`);
  }
  const sourceSha = sha256Hex(input.bytes);
  const existing = assets.bySourceSha(scope, sourceSha);
  if (existing) return { asset: toImportedAsset(existing, assets.renditions(existing.seq), urls, true), row: existing };

  const original = await normaliseOriginal(input.bytes, input.field, { maxInputPixels: policy.maxInputPixels, allowVideo: input.allowVideo ?? false });
  const renditions = await makeRenditions(original, policy.maxInputPixels);
  const stored = await blobs.put(original.bytes);
  const storedRenditions = [];
  for (const r of renditions) {
    const b = await blobs.put(r.bytes);
    storedRenditions.push({ role: r.role, width: r.width, height: r.height, format: r.format, sha256: b.sha256, size_bytes: b.sizeBytes });
  }
  const name = deriveFilename({ userFilename: input.user.filename, url: input.sourceUrl, format: original.format, convertedFrom: original.convertedFrom, sha256: sourceSha });
  const tax = taxonomyForPurpose(input.user.purpose);
  const userFields = (['filename', 'alt_text', 'tags', 'purpose'] as const).filter((k) => input.user[k] !== undefined);
  const id = randomUUID();
  try {
    const seq = assets.insert({
      id,
      tenant_id: scope.tenantId,
      workspace_id: scope.workspaceId,
      kind: original.kind,
      format: original.format,
      mime_type: original.mime,
      width: original.width,
      height: original.height,
      size_bytes: stored.sizeBytes,
      sha256: stored.sha256,
      source_sha256: sourceSha,
      converted_from: original.convertedFrom,
      name,
      alt_text: input.user.alt_text?.trim() || null,
      tags: [...new Set(input.user.tags ?? [])],
      purpose: input.user.purpose ?? null,
      category: input.category ?? tax?.category ?? null,
      subtype: input.subtype ?? tax?.subtype ?? null,
      user_fields: userFields,
      source: input.source,
      source_url: input.sourceUrl ?? null,
      provenance: input.provenance ? JSON.stringify(input.provenance) : null,
      enrichment_status: deps.onAssetStored.length > 0 ? 'pending' : 'skipped',
      created_at: new Date().toISOString(),
      renditions: storedRenditions,
    }, input.onInsert ? (seq) => input.onInsert!({ id, seq }) : undefined);
    for (const hook of deps.onAssetStored) hook({ seq, tenantId: scope.tenantId, workspaceId: scope.workspaceId });
    const row = assets.bySeq(seq)!;
    deps.log.info({ mod: 'import', asset_id: id, bytes: stored.sizeBytes, format: original.format, renditions: storedRenditions.length }, 'asset stored');
    return { asset: toImportedAsset(row, assets.renditions(seq), urls, false), row };
  } catch (e) {
    if (isUniqueViolation(e)) {
      const raced = assets.bySourceSha(scope, sourceSha);
      if (raced) return { asset: toImportedAsset(raced, assets.renditions(raced.seq), urls, true), row: raced };
    }
    throw e;
  }
}

/**
 * Resolves a staged attachment id (a verified upload of the same scope, server/library/upload.ts) to its
 * bytes and the metadata given when it was uploaded; null when missing, foreign, unfinished or expired.
 */
export interface AttachmentResolver {
  (scope: Scope, attachmentId: string): Promise<{ bytes: Buffer; user: UserMetadata } | null>;
}

/**
 * `svc_asset_import` `import` (spec §4.6): download or decode the input and store it.
 * @throws ServiceError invalid_argument | conversion_failed | unsupported
 */
export async function importAsset(deps: LibraryDeps, scope: Scope, args: ImportArgs, attachments?: AttachmentResolver) {
  const user: UserMetadata = { filename: args.filename, alt_text: args.alt_text, tags: args.tags, purpose: args.purpose };
  if (args.url !== undefined) {
    const body = await fetchUrl(args.url, {
      maxBytes: deps.policy.maxImportBytes,
      timeoutMs: deps.policy.fetchTimeoutMs,
      maxRedirects: 5,
      allowPrivate: deps.policy.allowPrivateUrls,
    });
    return (await storeAsset(deps, scope, { bytes: body.bytes, field: 'args.url', source: 'import_url', sourceUrl: body.finalUrl, user })).asset;
  }
  if (args.data !== undefined) {
    const bytes = Buffer.from(args.data.replace(/\s+/g, ''), args.data.includes('-') || args.data.includes('_') ? 'base64url' : 'base64');
    return (await storeAsset(deps, scope, { bytes, field: 'args.data', source: 'import_data', user })).asset;
  }
  const items = args.attachments ?? [];
  if (!attachments) throw new ServiceError('unsupported', 'args.attachments', 'attachment import is not available on this server; use url or data');
  const results = [];
  for (const [i, a] of items.entries()) {
    const field = `args.attachments[${i}]`;
    try {
      const staged = await attachments(scope, a.attachment_id);
      if (!staged) throw new ServiceError('not_found', `${field}.attachment_id`, `attachment ${a.attachment_id} does not exist, is not finished, or has expired`);
      // Precedence: the attachment's own fields, then what the user typed for this file at upload time,
      // then the batch-level fields of the call.
      const { asset } = await storeAsset(deps, scope, {
        bytes: staged.bytes, field, source: 'upload', allowVideo: true,
        user: {
          filename: a.filename ?? staged.user.filename,
          alt_text: a.alt_text ?? staged.user.alt_text ?? args.alt_text,
          tags: a.tags ?? staged.user.tags ?? args.tags,
          purpose: a.purpose ?? staged.user.purpose ?? args.purpose,
        },
      });
      results.push({ attachment_id: a.attachment_id, status: 'imported' as const, asset, error: null });
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      results.push({ attachment_id: a.attachment_id, status: 'failed' as const, asset: null, error: { code: e.code, field: e.field, message: e.message } });
    }
  }
  return { items: results, imported: results.filter((r) => r.status === 'imported').length, failed: results.filter((r) => r.status === 'failed').length };
}
