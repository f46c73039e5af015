import type { Asset, MatchKind } from '../../shared/schemas/asset.ts';
import type { ImportedAsset } from '../../shared/schemas/import.ts';
import type { AssetCard, AssetRow, RenditionRow } from '../db/ports/asset-store.ts';
import { orientationOf } from '../domain/media/alt-text.ts';
import { usageHint } from '../domain/media/asset-meta.ts';
import type { UrlBuilder } from '../storage/urls.ts';

/** User tags first, then automatic tags not already present. */
export function allTags(row: Pick<AssetRow, 'tags' | 'auto_tags'>): string[] {
  // nothing to merge (no automatic tags, or none yet): most cards of a result page
  if (row.auto_tags.length === 0) return row.tags;
  const seen = new Set(row.tags.map((t) => t.toLowerCase()));
  return [...row.tags, ...row.auto_tags.filter((t) => !seen.has(t.toLowerCase()))];
}

/** `AssetCard` of a full row and its renditions (ordered by role, width, as `renditions` returns them). */
export function cardOf(row: AssetRow, renditions: RenditionRow[]): AssetCard {
  const thumb = renditions.find((r) => r.role === 'thumbnail');
  return {
    seq: row.seq,
    id: row.id,
    kind: row.kind,
    format: row.format,
    width: row.width,
    height: row.height,
    key: row.blob_key,
    name: row.name,
    alt_text: row.alt_text,
    tags: row.tags,
    auto_tags: row.auto_tags,
    purpose: row.purpose,
    category: row.category,
    subtype: row.subtype,
    enrichment_status: row.enrichment_status,
    thumbnail: thumb ? { key: thumb.blob_key, format: thumb.format } : null,
  };
}

/** URLs of an asset's original, thumbnail, fallback and WebP srcset. */
export function assetUrls(row: AssetRow, renditions: RenditionRow[], urls: UrlBuilder) {
  const original = urls.keyed(row.blob_key, row.format);
  const thumb = renditions.find((r) => r.role === 'thumbnail');
  const fallback = renditions.find((r) => r.role === 'fallback');
  const webp = renditions.filter((r) => r.role === 'webp').sort((a, b) => a.width - b.width);
  return {
    original,
    thumbnail: thumb ? urls.keyed(thumb.blob_key, thumb.format) : original,
    fallback: fallback ? urls.keyed(fallback.blob_key, fallback.format) : original,
    webp: webp.map((r) => ({
      url: urls.keyed(r.blob_key, r.format),
      width: r.width,
      height: r.height,
      format: r.format,
      size_bytes: r.size_bytes,
    })),
    thumbnailSha: thumb?.sha256 ?? null,
  };
}

/**
 * Map a card (`cardsBySeqs`, or `cardOf` a full row) to the spec's Asset (search result item): the
 * original's URL, and the thumbnail's (the original's when it has none).
 * @param hit relevance in [0, 1] and how it matched (null outside a ranked search)
 */
export function toAsset(row: AssetCard, urls: UrlBuilder, hit: { relevance: number | null; matchedBy: MatchKind[] | null } | null): Asset {
  const original = urls.keyed(row.key, row.format);
  return {
    id: row.id,
    original_url: original,
    thumbnail_url: row.thumbnail ? urls.keyed(row.thumbnail.key, row.thumbnail.format) : original,
    url: original,
    name: row.name,
    tags: allTags(row),
    kind: row.kind,
    width: row.width,
    height: row.height,
    format: row.format,
    usage_hint: usageHint(row),
    alt_text: row.alt_text,
    category: row.category,
    subtype: row.subtype,
    orientation: orientationOf(row.width, row.height),
    relevance: hit?.relevance ?? null,
    matched_by: hit?.matchedBy ?? null,
    enrichment_status: row.enrichment_status,
  };
}

/** Map a row to the spec's Imported asset. */
export function toImportedAsset(row: AssetRow, renditions: RenditionRow[], urls: UrlBuilder, deduplicated: boolean): ImportedAsset {
  const u = assetUrls(row, renditions, urls);
  return {
    id: row.id,
    asset_id: row.id,
    url: u.original,
    kind: row.kind,
    width: row.width,
    height: row.height,
    alt_text: row.alt_text,
    srcset_webp: u.webp.map((v) => `${v.url} ${v.width}w`).join(', '),
    fallback_url: u.fallback,
    processing_status: row.processing_status,
    enrichment_status: row.enrichment_status,
    delivery_provider: 'atelier-cdn',
    delivery: { cdn_base_url: urls.base(), original_url: u.original, thumbnail_url: u.thumbnail, variants: u.webp },
    name: row.name,
    format: row.format,
    size_bytes: row.size_bytes,
    tags: allTags(row),
    purpose: row.purpose,
    deduplicated,
    converted_from: row.converted_from,
  };
}
