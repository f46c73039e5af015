import { LRUCache } from 'lru-cache';
import type { AssetRow, RenditionRow } from '../db/ports/asset-store.ts';
import type { Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import { imageWork, type LibraryDeps } from './deps.ts';
import { IMAGE_PRIORITY } from './image-pool.ts';
import { viewJpeg } from './view-jpeg.ts';
import { allTags } from './present.ts';

/** Longest edge (px) and payload cap (bytes) of the `view` image block (spec §4.5; vision models downscale beyond 1568 px). */
export const VIEW_MAX_EDGE = 1568;
export const VIEW_MAX_BYTES = 1024 * 1024;

/**
 * The stored image a preview is made from: the smallest WebP rendition whose long edge still covers the
 * preview's (min(1568 px, the original's long edge)) when it has fewer pixels than the original, else
 * the original. A 6000×4000 JPEG is previewed from its 1920×1280 rendition: ~1/10 of the pixels to
 * decode and no full-size decode buffer per `view`. An SVG is always previewed from its widest raster rendition.
 */
export function previewSource(row: Pick<AssetRow, 'sha256' | 'width' | 'height' | 'kind'>, renditions: RenditionRow[]): string {
  // an SVG is previewed from its raster renditions only: rendering the document again could take minutes
  if (row.kind === 'svg') return [...renditions].sort((a, b) => b.width * b.height - a.width * a.height)[0]?.sha256 ?? row.sha256;
  if (!row.width || !row.height) return row.sha256;
  const need = Math.min(VIEW_MAX_EDGE, Math.max(row.width, row.height));
  const covering = renditions
    .filter((r) => r.role === 'webp' && Math.max(r.width, r.height) >= need && r.width * r.height < row.width! * row.height!)
    .sort((a, b) => a.width * a.height - b.width * b.height);
  return covering[0]?.sha256 ?? row.sha256;
}

/** Bytes of view previews kept per server, as base64 (about 80–240 previews of 100–300 KB). */
export const VIEW_CACHE_BYTES = 32 * 1024 * 1024;

/** A preview as the `view` result carries it: the JPEG in base64 (encoded once, not per view), its size in bytes and px. */
type Preview = { base64: string; bytes: number; width: number; height: number };
const previewCaches = new WeakMap<object, LRUCache<string, Preview>>();

/**
 * The preview cache of one server (keyed by its blob store): source blob sha256 → JPEG. Blobs are
 * content-addressed and immutable, so an entry is never stale; least recently used previews go past
 * `VIEW_CACHE_BYTES` (lru-cache, https://github.com/isaacs/node-lru-cache). Concurrent views of one asset
 * share one encoding (`fetch`), so a burst of views costs one pool operation, not one each.
 */
function previewCache(deps: LibraryDeps): LRUCache<string, Preview> {
  let cache = previewCaches.get(deps.blobs);
  if (!cache) {
    cache = new LRUCache<string, Preview>({
      maxSize: VIEW_CACHE_BYTES,
      sizeCalculation: (p) => Math.max(1, p.base64.length),
      fetchMethod: async (sha) => {
        const jpeg = await viewJpeg(await deps.blobs.get(sha), imageWork(deps.images, IMAGE_PRIORITY.view), VIEW_MAX_EDGE, VIEW_MAX_BYTES);
        return { base64: jpeg.data.toString('base64'), bytes: jpeg.data.length, width: jpeg.width, height: jpeg.height };
      },
    });
    previewCaches.set(deps.blobs, cache);
  }
  return cache;
}

/**
 * `svc_assets` `view`: a JPEG preview (≤ 1568 px longest edge, ≤ 1 MiB; made and base64-encoded once
 * per stored image and kept in a bounded cache), as `imageBase64`, and the asset's facts.
 * @throws ServiceError not_found (args.asset_id) | unsupported (video assets)
 */
export async function viewAsset(deps: LibraryDeps, scope: Scope, assetId: string) {
  const row = await deps.assets.byId(scope, assetId);
  if (!row) throw new ServiceError('not_found', 'args.asset_id', `asset ${assetId} does not exist in this workspace`);
  if (row.kind === 'video') throw new ServiceError('unsupported', 'args.asset_id', 'view shows images; this asset is a video');
  const source = previewSource(row, await deps.assets.renditions(row.seq));
  const jpeg = await previewCache(deps).forceFetch(source);
  return {
    imageBase64: jpeg.base64,
    facts: {
      asset_id: row.id,
      url: deps.urls.keyed(row.blob_key, row.format),
      width: row.width,
      height: row.height,
      name: row.name,
      preview_width: jpeg.width,
      preview_height: jpeg.height,
      preview_bytes: jpeg.bytes,
      alt_text: row.alt_text,
      tags: allTags(row),
      ocr_text: row.ocr_text,
      enrichment_status: row.enrichment_status,
    },
  };
}
