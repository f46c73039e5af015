import { ASSET_TAXONOMY, type AssetCategory, type Orientation } from '../../shared/schemas/asset.ts';
import type { FacetsResult, ThumbnailsResult } from '../../shared/schemas/panel.ts';
import type { AssetFacetQueries } from '../db/asset-facets.ts';
import { buildMatch, queryTerms } from '../domain/fts-query.ts';
import type { Scope } from '../domain/scope.ts';
import type { LibraryDeps } from './deps.ts';

/** Largest SVG original inlined as a preview when an asset has no raster thumbnail, bytes. */
const MAX_INLINE_SVG_BYTES = 256 * 1024;

/**
 * Previews for a panel as `data:` URLs (`svc_asset_panel` `thumbnails`): the stored thumbnail
 * rendition (JPEG, longest edge 320 px), or the SVG original when small. `data:` is allowed by the
 * MCP Apps default CSP (`img-src 'self' data:`) while `blob:` and undeclared origins are not
 * (research note §6). Ids of other workspaces land in `not_found`, like missing ones.
 */
export async function thumbnailsFor(deps: LibraryDeps, scope: Scope, assetIds: string[]): Promise<ThumbnailsResult> {
  const thumbnails: ThumbnailsResult['thumbnails'] = [];
  const notFound: string[] = [];
  for (const id of assetIds) {
    const row = deps.assets.byId(scope, id);
    if (!row) {
      notFound.push(id);
      continue;
    }
    const thumb = deps.assets.renditions(row.seq).find((r) => r.role === 'thumbnail');
    if (thumb && deps.blobs.has(thumb.sha256)) {
      const bytes = await deps.blobs.get(thumb.sha256);
      const mime = thumb.format === 'png' ? 'image/png' : thumb.format === 'webp' ? 'image/webp' : 'image/jpeg';
      thumbnails.push({ asset_id: row.id, data_url: `data:${mime};base64,${bytes.toString('base64')}`, width: thumb.width, height: thumb.height, bytes: bytes.length });
    } else if (row.kind === 'svg' && row.size_bytes <= MAX_INLINE_SVG_BYTES && deps.blobs.has(row.sha256)) {
      const bytes = await deps.blobs.get(row.sha256);
      thumbnails.push({ asset_id: row.id, data_url: `data:image/svg+xml;base64,${bytes.toString('base64')}`, width: row.width, height: row.height, bytes: bytes.length });
    } else {
      thumbnails.push({ asset_id: row.id, data_url: null, width: null, height: null, bytes: 0 });
    }
  }
  return { thumbnails, not_found: notFound };
}

/**
 * Category and subtype counts for the picker's category browser (`svc_asset_panel` `facets`).
 * Categories are listed in taxonomy order (then unknown ones), subtypes by count; a query counts only
 * assets matching all its terms (FTS5), like the default search mode's first pass.
 */
export function facetsFor(facets: AssetFacetQueries, scope: Scope, opts: { query?: string | undefined; kind?: string | undefined; orientation?: Orientation | undefined }): FacetsResult {
  const terms = opts.query ? queryTerms(opts.query) : [];
  const match = terms.length ? buildMatch(terms, 'AND', null) : null;
  const rows = facets.counts(scope, { match, kind: opts.kind, orientation: opts.orientation });
  const byCat = new Map<string, { count: number; subtypes: Map<string, number> }>();
  let total = 0;
  let uncategorized = 0;
  for (const r of rows) {
    total += r.n;
    if (!r.category) {
      uncategorized += r.n;
      continue;
    }
    const c = byCat.get(r.category) ?? { count: 0, subtypes: new Map<string, number>() };
    c.count += r.n;
    if (r.subtype) c.subtypes.set(r.subtype, (c.subtypes.get(r.subtype) ?? 0) + r.n);
    byCat.set(r.category, c);
  }
  const order = Object.keys(ASSET_TAXONOMY) as AssetCategory[];
  const cats = [...byCat.keys()].sort((a, b) => {
    const ia = order.indexOf(a as AssetCategory);
    const ib = order.indexOf(b as AssetCategory);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  return {
    total,
    uncategorized,
    categories: cats.map((category) => {
      const c = byCat.get(category)!;
      return { category, count: c.count, subtypes: [...c.subtypes].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([subtype, count]) => ({ subtype, count })) };
    }),
  };
}
