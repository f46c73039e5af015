import { ASSET_TAXONOMY, type AssetCategory, type Orientation, type SearchMode } from '../../shared/schemas/asset.ts';
import type { FacetsResult, ThumbnailsResult } from '../../shared/schemas/panel.ts';
import type { AssetFacetStore } from '../db/ports/asset-facet-store.ts';
import type { Scope } from '../domain/scope.ts';
import type { LibraryDeps } from './deps.ts';
import { matchAssets, type AssetVectorSearch } from './search.ts';

/** Largest SVG original inlined as a preview when an asset has no raster thumbnail, bytes. */
const MAX_INLINE_SVG_BYTES = 256 * 1024;

/** A stored raster rendition that can serve as a preview. */
interface PreviewCandidate {
  role: string;
  width: number;
  height: number;
  format: string;
}

/**
 * The rendition to preview at `sizePx` device px: the smallest (by pixel count) thumbnail or WebP
 * rendition whose shorter edge reaches `sizePx` (a cover-fitted square cell shows the shorter edge in
 * full), else the one with the longest shorter edge. Without `sizePx`, the thumbnail. Null when none.
 * Fallback renditions (full-size JPEG/PNG for odd originals) are never previews: too heavy.
 */
export function pickPreviewRendition<R extends PreviewCandidate>(renditions: R[], sizePx: number | undefined): R | null {
  const thumb = renditions.find((r) => r.role === 'thumbnail') ?? null;
  if (sizePx === undefined || !thumb) return thumb;
  const pool = renditions.filter((r) => r.role === 'thumbnail' || r.role === 'webp');
  const short = (r: R): number => Math.min(r.width, r.height);
  const enough = pool
    .filter((r) => short(r) >= sizePx)
    .sort((a, b) => a.width * a.height - b.width * b.height || Number(b === thumb) - Number(a === thumb));
  if (enough[0]) return enough[0];
  return pool.sort((a, b) => short(b) - short(a) || a.width * a.height - b.width * b.height)[0] ?? thumb;
}

const MIME: Record<string, string> = { png: 'image/png', webp: 'image/webp', jpeg: 'image/jpeg' };

/** A blob's bytes, or null when they are not stored (a blob store error still throws). */
async function getIfPresent(deps: LibraryDeps, sha256: string): Promise<Buffer | null> {
  try {
    return await deps.blobs.get(sha256);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Previews for a panel as `data:` URLs (`svc_asset_panel` `thumbnails`): the stored thumbnail
 * rendition (JPEG, longest edge 320 px) or, when `sizePx` asks for more (high-DPI screens), the
 * smallest WebP rendition covering it (`pickPreviewRendition`); the SVG original when small. `data:`
 * is allowed by the MCP Apps default CSP (`img-src 'self' data:`) while `blob:` and undeclared origins
 * are not (research note §6). Ids of other workspaces land in `not_found`, like missing ones.
 * @param sizePx device px the preview should cover on both edges (optional)
 */
export async function thumbnailsFor(deps: LibraryDeps, scope: Scope, assetIds: string[], sizePx?: number): Promise<ThumbnailsResult> {
  const thumbnails: ThumbnailsResult['thumbnails'] = [];
  const notFound: string[] = [];
  for (const id of assetIds) {
    const row = await deps.assets.byId(scope, id);
    if (!row) {
      notFound.push(id);
      continue;
    }
    const thumb = pickPreviewRendition(await deps.assets.renditions(row.seq), sizePx);
    // one read per thumbnail (absent bytes are an answer), not an existence check and then a read
    const thumbBytes = thumb ? await getIfPresent(deps, thumb.sha256) : null;
    const svgBytes =
      !thumbBytes && row.kind === 'svg' && row.size_bytes <= MAX_INLINE_SVG_BYTES ? await getIfPresent(deps, row.sha256) : null;
    if (thumb && thumbBytes) {
      const bytes = thumbBytes;
      const mime = MIME[thumb.format] ?? 'image/jpeg';
      thumbnails.push({
        asset_id: row.id,
        data_url: `data:${mime};base64,${bytes.toString('base64')}`,
        width: thumb.width,
        height: thumb.height,
        bytes: bytes.length,
      });
    } else if (svgBytes) {
      const bytes = svgBytes;
      thumbnails.push({
        asset_id: row.id,
        data_url: `data:image/svg+xml;base64,${bytes.toString('base64')}`,
        width: row.width,
        height: row.height,
        bytes: bytes.length,
      });
    } else {
      thumbnails.push({ asset_id: row.id, data_url: null, width: null, height: null, bytes: 0 });
    }
  }
  return { thumbnails, not_found: notFound };
}

/**
 * Category and subtype counts for the picker's category browser (`svc_asset_panel` `facets`).
 * Categories are listed in taxonomy order (then unknown ones), subtypes by count. With a query, the
 * counts are over exactly the assets search reports as matches for it in the same mode
 * (`matchAssets`), so "All n" above a result list equals its total.
 */
export async function facetsFor(
  deps: LibraryDeps,
  facets: AssetFacetStore,
  scope: Scope,
  opts: { query?: string | undefined; mode?: SearchMode | undefined; kind?: string | undefined; orientation?: Orientation | undefined },
  vectors: AssetVectorSearch | null,
): Promise<FacetsResult> {
  const mode = opts.mode && opts.mode !== 'similar' ? opts.mode : 'all';
  const rows = opts.query
    ? await facets.countsOf(
        scope,
        (
          await matchAssets(deps, scope, { query: opts.query, mode }, { kind: opts.kind, orientation: opts.orientation }, vectors)
        ).ranked.matchSeqs(),
      )
    : await facets.counts(scope, { kind: opts.kind, orientation: opts.orientation });
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
      return {
        category,
        count: c.count,
        subtypes: [...c.subtypes].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([subtype, count]) => ({ subtype, count })),
      };
    }),
  };
}
