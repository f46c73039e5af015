import { categoryOfSubtype, subtypesOf } from '../../shared/schemas/asset.ts';
import { USER_FIELDS, type DeleteAssetsResult, type UpdateAssetArgs, type UpdateAssetResult } from '../../shared/schemas/manage.ts';
import type { AssetRow } from '../db/ports/asset-store.ts';
import { taxonomyForPurpose } from '../domain/media/asset-meta.ts';
import type { Scope } from '../domain/scope.ts';
import { nameWords } from '../domain/media/alt-text.ts';
import { safeFileName } from '../domain/media/file-name.ts';
import { ServiceError } from '../errors.ts';
import type { LibraryDeps } from './deps.ts';
import { cardOf, toAsset } from './present.ts';

/** Called after an asset's text changed, so enrichment re-embeds it (and refreshes vector metadata). */
export type AssetChangedHook = (seq: number) => void;

type UserField = (typeof USER_FIELDS)[number];

/**
 * `svc_asset_manage` `update`: set user metadata of one asset (spec §2: user metadata stays
 * authoritative over enrichment). Given fields join `user_fields`; `alt_text: null` removes alt text
 * from them and restores the machine alt text. A purpose with a known taxonomy sets category/subtype
 * unless those are given; a category change drops a subtype that does not belong to it.
 * @throws ServiceError not_found (args.asset_id)
 */
export async function updateAsset(
  deps: LibraryDeps,
  scope: Scope,
  args: UpdateAssetArgs,
  onChanged: AssetChangedHook | null,
): Promise<UpdateAssetResult> {
  const row = await deps.assets.byId(scope, args.asset_id);
  if (!row) throw new ServiceError('not_found', 'args.asset_id', `asset ${args.asset_id} does not exist in this workspace`);
  const userFields = new Set(row.user_fields as UserField[]);

  const name = args.filename !== undefined ? safeFileName(args.filename, row.format).name : row.name;
  if (!name) throw new ServiceError('invalid_argument', 'args.filename', 'must hold a letter or digit outside any path');
  if (args.filename !== undefined) userFields.add('filename');

  // Clearing the user's alt text falls back to the machine one (a marker object, so no typed text is mistaken for it).
  let altText: string | null | { machine: true } = row.alt_text;
  if (args.alt_text === null) {
    userFields.delete('alt_text');
    altText = { machine: true };
  } else if (args.alt_text !== undefined) {
    userFields.add('alt_text');
    altText = args.alt_text;
  }

  const tags = args.tags !== undefined ? [...new Set(args.tags)] : row.tags;
  if (args.tags !== undefined) userFields.add('tags');

  const purpose = args.purpose !== undefined ? args.purpose : row.purpose;
  if (args.purpose === null) userFields.delete('purpose');
  else if (args.purpose !== undefined) userFields.add('purpose');

  let category = row.category;
  let subtype = row.subtype;
  const implied = args.purpose ? taxonomyForPurpose(args.purpose) : null;
  if (implied && args.category === undefined) ({ category, subtype } = implied);
  if (args.category !== undefined) {
    category = args.category;
    // a subtype only survives a category change when it belongs to the new category
    if (!category || (subtype && !subtypesOf(category).includes(subtype))) subtype = null;
  }
  if (args.subtype !== undefined) subtype = args.subtype;
  if (subtype && !category) category = categoryOfSubtype(subtype);
  if (subtype && category && !subtypesOf(category).includes(subtype)) {
    throw new ServiceError(
      'invalid_argument',
      'args.subtype',
      `must be a subtype of category ${category}: ${subtypesOf(category).join(', ')}`,
    );
  }

  await deps.assets.updateMetadata(scope, row.seq, {
    name,
    name_words: nameWords(name),
    alt_text: altText,
    tags,
    purpose,
    category,
    subtype,
    user_fields: USER_FIELDS.filter((f) => userFields.has(f)),
  });
  const after = (await deps.assets.bySeq(row.seq))!;
  const changed = diff(row, after);
  // Text, category or subtype changed: re-embed, and rewrite the vec0 metadata columns used by filtered KNN.
  if (changed.length > 0) onChanged?.(row.seq);
  deps.log.info({ mod: 'manage', asset_id: row.id, changed }, 'asset metadata updated');
  return {
    ...toAsset(cardOf(after, await deps.assets.renditions(after.seq)), deps.urls, null),
    purpose: after.purpose,
    user_fields: after.user_fields as UserField[],
    changed,
  };
}

/** Whether two lists hold the same strings in the same order. */
const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

function diff(a: AssetRow, b: AssetRow): string[] {
  const out: string[] = [];
  if (a.name !== b.name) out.push('filename');
  if (a.alt_text !== b.alt_text) out.push('alt_text');
  if (!sameList(a.tags, b.tags)) out.push('tags');
  if (a.purpose !== b.purpose) out.push('purpose');
  if (a.category !== b.category) out.push('category');
  if (a.subtype !== b.subtype) out.push('subtype');
  if (!sameList(a.user_fields, b.user_fields) && out.length === 0) out.push('user_fields');
  return out;
}

/**
 * `svc_asset_manage` `delete`: remove assets of the workspace in one transaction (rows, renditions,
 * FTS and vector entries). A URL stops answering once no row of the tenant holds its public key (keys
 * are per tenant, server/db/blob-keys.ts): `still_served` lists the deleted originals' URLs another
 * asset of the same tenant still serves (identical bytes), never anything about other tenants. The
 * files are removed by the blob GC after its grace period, once no tenant references them. Ids of other
 * workspaces or tenants are `not_found`.
 */
export async function deleteAssets(deps: LibraryDeps, scope: Scope, assetIds: string[]): Promise<DeleteAssetsResult> {
  const seen = new Set<string>();
  const found: AssetRow[] = [];
  const notFound: string[] = [];
  for (const id of assetIds) {
    const key = id.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const row = await deps.assets.byId(scope, id);
    if (row) found.push(row);
    else notFound.push(id);
  }
  await deps.assets.deleteMany(
    scope,
    found.map((r) => r.seq),
  );
  const deleted = found.map((r) => ({ asset_id: r.id, name: r.name, url: deps.urls.keyed(r.blob_key, r.format) }));
  const stillServed: string[] = [];
  for (const r of found) if (await deps.assets.blobByKey(r.blob_key)) stillServed.push(deps.urls.keyed(r.blob_key, r.format));
  deps.log.info({ mod: 'manage', deleted: deleted.length, not_found: notFound.length }, 'assets deleted');
  return { deleted, not_found: notFound, still_served: stillServed };
}
