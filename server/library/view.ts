import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import type { LibraryDeps } from './deps.ts';
import { viewJpeg } from './media.ts';
import { allTags } from './present.ts';

/** Longest edge (px) and payload cap (bytes) of the `view` image block (spec §4.5; vision models downscale beyond 1568 px). */
export const VIEW_MAX_EDGE = 1568;
export const VIEW_MAX_BYTES = 1024 * 1024;

/**
 * `svc_assets` `view`: a JPEG preview (≤ 1568 px longest edge, ≤ 1 MiB) and the asset's facts.
 * @throws ServiceError not_found (args.asset_id) | unsupported (video assets)
 */
export async function viewAsset(deps: LibraryDeps, scope: Scope, assetId: string) {
  const row = deps.assets.byId(scope, assetId);
  if (!row) throw new ServiceError('not_found', 'args.asset_id', `asset ${assetId} does not exist in this workspace`);
  if (row.kind === 'video') throw new ServiceError('unsupported', 'args.asset_id', 'view shows images; this asset is a video');
  const jpeg = await viewJpeg(await deps.blobs.get(row.sha256), VIEW_MAX_EDGE, VIEW_MAX_BYTES);
  return {
    image: jpeg.data,
    facts: {
      asset_id: row.id,
      url: deps.urls.blob(row.sha256, row.format),
      width: row.width,
      height: row.height,
      name: row.name,
      preview_width: jpeg.width,
      preview_height: jpeg.height,
      preview_bytes: jpeg.data.length,
      alt_text: row.alt_text,
      tags: allTags(row),
      ocr_text: row.ocr_text,
      enrichment_status: row.enrichment_status,
    },
  };
}
