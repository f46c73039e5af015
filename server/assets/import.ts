import { randomUUID } from 'node:crypto';
import type { ImportArgs, ImportedAsset } from '../../shared/schemas/import.ts';
import type { AssetProvenance, AssetRow, NewAsset } from '../db/ports/asset-store.ts';
import type { HoldSettlement } from '../db/ports/credit-store.ts';
import { isUniqueViolation } from '../db/ports/errors.ts';
import { deriveFilename, taxonomyForPurpose } from '../domain/media/asset-meta.ts';
import type { Scope } from '../domain/scope.ts';
import { nameWords } from '../domain/media/alt-text.ts';
import { ServiceError } from '../errors.ts';
import { sha256Hex } from '../storage/blob-store.ts';
import { imageWork, type LibraryDeps } from './deps.ts';
import { fetchUrl } from './fetch-url.ts';
import { IMAGE_PRIORITY, type ImportSlot } from './image-pool.ts';
import { prepareImage, type PreparedImage } from './media.ts';
import { asQuotaError, precheckQuota, quotaCheck, tenantQuota } from './quota.ts';
import { toImportedAsset } from './present.ts';
import { safeFileName } from '../domain/media/file-name.ts';

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
  /** how a generated asset was made (generate.ts) */
  provenance?: AssetProvenance | undefined;
  allowVideo?: boolean | undefined;
  /**
   * Admission to the image pool: a slot the caller already holds (it releases it), or `'admit'` to be
   * admitted after the duplicate check (an identical-bytes hit needs no image work) and refused with
   * `busy` when the server is at its import limit or the tenant at its fair share of it (import-admission.ts). Omitted: no admission (seed, CLI, generation: work
   * already paid for waits its turn in the pool instead of being refused).
   */
  admission?: ImportSlot | 'admit' | undefined;
  /** progress of the import in words (waiting for the pool, processing); MCP progress notifications */
  onProgress?: ((message: string) => void) | undefined;
  /** the credit hold to settle in the asset's insert transaction (generation); not settled when deduplicated */
  settle?: HoldSettlement | undefined;
  /** the upload whose staged bytes become this asset: not counted twice against the tenant's quota */
  fromUpload?: string | undefined;
}

/** Sources stored by the operator (demo seed, CLI import), never refused for the tenant's storage quota. */
const OPERATOR_SOURCES: ReadonlySet<StoreInput['source']> = new Set(['seed', 'cli']);

/** The existing asset for identical bytes, with the supplied user fields that differ from it (not applied). */
async function duplicateOf(deps: LibraryDeps, row: AssetRow, user: UserMetadata): Promise<ImportedAsset> {
  const asset = toImportedAsset(row, await deps.assets.renditions(row.seq), deps.urls, true);
  const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));
  const notApplied: NonNullable<ImportedAsset['not_applied']> = [];
  const asked = user.filename !== undefined ? safeFileName(user.filename, row.format).name : '';
  if (asked && asked !== row.name) notApplied.push('filename');
  if (user.alt_text !== undefined && (user.alt_text.trim() || null) !== row.alt_text) notApplied.push('alt_text');
  if (user.tags !== undefined && !sameSet([...new Set(user.tags)], row.tags)) notApplied.push('tags');
  if (user.purpose !== undefined && (user.purpose || null) !== row.purpose) notApplied.push('purpose');
  return notApplied.length ? { ...asset, not_applied: notApplied } : asset;
}

/**
 * Store bytes as a library asset: sniff and validate, convert HEIC/HEIF to PNG, derive renditions from
 * one decode on the image pool (server/assets/media.ts `prepareImage`), write blobs, insert the row
 * (FTS kept by triggers) and notify enrichment. Identical bytes already in the workspace return the
 * existing asset with `deduplicated: true` (also under concurrent imports), and so do bytes whose stored
 * file (after conversion) is identical to an existing asset's (two concurrent such imports may both be kept).
 * Counted against the tenant's storage quota (assets/quota.ts) unless the operator stores it (seed, CLI).
 * @throws ServiceError invalid_argument | conversion_failed | busy (with `admission: 'admit'`) | quota_exceeded
 *   (nothing is stored on error)
 */
export async function storeAsset(deps: LibraryDeps, scope: Scope, input: StoreInput): Promise<{ asset: ImportedAsset; row: AssetRow }> {
  const { assets, blobs, urls, policy } = deps;
  if (input.bytes.length === 0) throw new ServiceError('invalid_argument', input.field, 'is empty');
  if (input.bytes.length > policy.maxImportBytes) {
    throw new ServiceError('invalid_argument', input.field, `is ${input.bytes.length} bytes; the limit is ${policy.maxImportBytes} bytes`);
  }
  const sourceSha = sha256Hex(input.bytes);
  const existing = await assets.bySourceSha(scope, sourceSha);
  if (existing) return { asset: await duplicateOf(deps, existing, input.user), row: existing };
  const quotaLimit = OPERATOR_SOURCES.has(input.source) ? 0 : (await tenantQuota(deps, scope.tenantId)).limitBytes;
  if (quotaLimit > 0) await precheckQuota(deps, scope, input.field, input.bytes.length, input.fromUpload, quotaLimit);

  const slot = input.admission === 'admit' ? deps.images.admit(scope.tenantId) : null;
  let prepared: PreparedImage;
  try {
    const { running, waiting } = deps.images.stats();
    if (waiting > 0) input.onProgress?.(`waiting for the image workers (${running} operations running, ${waiting} queued)`);
    prepared = await prepareImage(
      input.bytes,
      input.field,
      { maxInputPixels: policy.maxInputPixels, allowVideo: input.allowVideo ?? false },
      imageWork(deps.images, IMAGE_PRIORITY.import),
    );
  } finally {
    slot?.release();
  }
  input.onProgress?.(`decoded and derived ${prepared.renditions.length} renditions; storing`);
  const { original, renditions } = prepared;
  // Different source bytes can convert to the same stored file (a HEIC re-exported with other camera metadata
  // decodes to the same pixels, so to the same PNG): that is the same image, answered as a duplicate.
  const sameFile = await assets.byStoredSha(scope, sha256Hex(original.bytes));
  if (sameFile) return { asset: await duplicateOf(deps, sameFile, input.user), row: sameFile };
  const stored = await blobs.put(original.bytes);
  // Every blob the row names is checked again once the row has committed (restoreCollected).
  const written: Buffer[] = [original.bytes];
  const storedRenditions = [];
  for (const r of renditions) {
    const b = await blobs.put(r.bytes);
    written.push(r.bytes);
    storedRenditions.push({ role: r.role, width: r.width, height: r.height, format: r.format, sha256: b.sha256, size_bytes: b.sizeBytes });
  }
  const { name, changed: nameChanged } = deriveFilename({
    userFilename: input.user.filename,
    url: input.sourceUrl,
    format: original.format,
    convertedFrom: original.convertedFrom,
    sha256: sourceSha,
  });
  const tax = taxonomyForPurpose(input.user.purpose);
  const userFields = (['filename', 'alt_text', 'tags', 'purpose'] as const).filter((k) => input.user[k] !== undefined);
  const id = randomUUID();
  await deps.testHooks?.pause('import-insert');
  try {
    const newAsset: NewAsset = {
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
      name_words: nameWords(name),
      alt_text: input.user.alt_text?.trim() || null,
      tags: [...new Set(input.user.tags ?? [])],
      purpose: input.user.purpose ?? null,
      category: input.category ?? tax?.category ?? null,
      subtype: input.subtype ?? tax?.subtype ?? null,
      user_fields: userFields,
      source: input.source,
      source_url: input.sourceUrl ?? null,
      provenance: input.provenance ?? null,
      enrichment_status: deps.onAssetStored.length > 0 ? 'pending' : 'skipped',
      created_at: new Date().toISOString(),
      renditions: storedRenditions,
    };
    const seq = await assets.insert(newAsset, { settle: input.settle, quota: quotaCheck(quotaLimit, Date.now(), input.fromUpload) });
    await restoreCollected(blobs, written);
    for (const hook of deps.onAssetStored) await hook({ seq, tenantId: scope.tenantId, workspaceId: scope.workspaceId });
    const row = (await assets.bySeq(seq))!;
    deps.log.info(
      { mod: 'import', asset_id: id, bytes: stored.sizeBytes, format: original.format, renditions: storedRenditions.length },
      'asset stored',
    );
    const asset = toImportedAsset(row, await assets.renditions(seq), urls, false);
    return { asset: nameChanged.length ? { ...asset, name_changed: nameChanged } : asset, row };
  } catch (e) {
    if (isUniqueViolation(e)) {
      const raced = await assets.bySourceSha(scope, sourceSha);
      if (raced) return { asset: await duplicateOf(deps, raced, input.user), row: raced };
    }
    // the blobs written above are left to the blob GC (unreferenced after its grace), as on any failed insert
    throw asQuotaError(e, input.field);
  }
}

/**
 * The writer's half of the blob GC's race safety (storage/blob-gc.ts): any blob the row names may have been
 * taken by a GC pass that had decided before this writer's `put` — after a renewal, and also after a fresh
 * write (S3: a pass that HEADed the old orphan before another pass removed it copies the fresh bytes aside
 * and deletes them). Now that the row has committed (so any later decision sees it), put back whatever is gone.
 */
async function restoreCollected(blobs: LibraryDeps['blobs'], written: Buffer[]): Promise<void> {
  for (const bytes of written) {
    if (!(await blobs.has(sha256Hex(bytes)))) await blobs.put(bytes);
  }
}

/**
 * Resolves a staged attachment id (a verified upload of the same scope, server/assets/upload.ts) to its
 * bytes and the metadata given when it was uploaded; null when missing, foreign, unfinished or expired.
 * `imported` records the asset the attachment became, so its staged bytes stop counting against the
 * tenant's quota and its workspace's open-upload cap (the asset counts instead).
 */
export interface AttachmentResolver {
  (scope: Scope, attachmentId: string): Promise<{ bytes: Buffer; user: UserMetadata; imported(assetId: string): Promise<void> } | null>;
}

/**
 * `svc_asset_import` `import` (spec §4.6): download or decode the input and store it. Admission to the
 * image pool comes first (before a download; for `data` after the duplicate check), so a `busy`
 * refusal has changed nothing and the same call can be retried.
 * @param onProgress progress in words while the import waits for or uses the image pool
 * @throws ServiceError invalid_argument | conversion_failed | unsupported | busy
 */
export async function importAsset(
  deps: LibraryDeps,
  scope: Scope,
  args: ImportArgs,
  attachments?: AttachmentResolver,
  onProgress?: (message: string) => void,
) {
  const user: UserMetadata = { filename: args.filename, alt_text: args.alt_text, tags: args.tags, purpose: args.purpose };
  if (args.url !== undefined) {
    const slot = deps.images.admit(scope.tenantId);
    try {
      const body = await fetchUrl(args.url, {
        maxBytes: deps.policy.maxImportBytes,
        timeoutMs: deps.policy.fetchTimeoutMs,
        maxRedirects: 5,
        allowPrivate: deps.policy.allowPrivateUrls,
      });
      return (
        await storeAsset(deps, scope, {
          bytes: body.bytes,
          field: 'args.url',
          source: 'import_url',
          sourceUrl: body.finalUrl,
          user,
          admission: slot,
          onProgress,
        })
      ).asset;
    } finally {
      slot.release();
    }
  }
  if (args.data !== undefined) {
    const bytes = Buffer.from(args.data.replace(/\s+/g, ''), args.data.includes('-') || args.data.includes('_') ? 'base64url' : 'base64');
    return (await storeAsset(deps, scope, { bytes, field: 'args.data', source: 'import_data', user, admission: 'admit', onProgress }))
      .asset;
  }
  const items = args.attachments ?? [];
  if (!attachments)
    throw new ServiceError('unsupported', 'args.attachments', 'attachment import is not available on this server; use url or data');
  // One slot for the whole batch: its items are processed one after another.
  const slot = deps.images.admit(scope.tenantId);
  try {
    return await importAttachments(deps, scope, args, items, attachments, slot, onProgress);
  } finally {
    slot.release();
  }
}

/** The attachments of one `import` call, one after another under the batch's admission `slot`. */
async function importAttachments(
  deps: LibraryDeps,
  scope: Scope,
  args: ImportArgs,
  items: NonNullable<ImportArgs['attachments']>,
  attachments: AttachmentResolver,
  slot: ImportSlot,
  onProgress?: (message: string) => void,
) {
  const results = [];
  for (const [i, a] of items.entries()) {
    const field = `args.attachments[${i}]`;
    try {
      const staged = await attachments(scope, a.attachment_id);
      if (!staged)
        throw new ServiceError(
          'not_found',
          `${field}.attachment_id`,
          `attachment ${a.attachment_id} does not exist, is not finished, or has expired`,
        );
      // Precedence: the attachment's own fields, then what the user typed for this file at upload time,
      // then the batch-level fields of the call.
      const { asset } = await storeAsset(deps, scope, {
        bytes: staged.bytes,
        field,
        source: 'upload',
        allowVideo: true,
        admission: slot,
        onProgress,
        fromUpload: a.attachment_id,
        user: {
          filename: a.filename ?? staged.user.filename,
          alt_text: a.alt_text ?? staged.user.alt_text ?? args.alt_text,
          tags: a.tags ?? staged.user.tags ?? args.tags,
          purpose: a.purpose ?? staged.user.purpose ?? args.purpose,
        },
      });
      await staged.imported(asset.asset_id);
      results.push({ attachment_id: a.attachment_id, status: 'imported' as const, asset, error: null });
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      results.push({
        attachment_id: a.attachment_id,
        status: 'failed' as const,
        asset: null,
        error: { code: e.code, field: e.field, message: e.message },
      });
    }
  }
  return {
    items: results,
    imported: results.filter((r) => r.status === 'imported').length,
    failed: results.filter((r) => r.status === 'failed').length,
  };
}
