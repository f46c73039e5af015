import type { AssetPage } from '../../shared/schemas/asset.ts';

type Request = AssetPage['request'];

const MODE: Record<string, string> = {
  filename: 'In file names',
  alt_text: 'In alt text',
  tags: 'In tags',
  ocr: 'In text inside images',
  semantic: 'By meaning',
  similar: 'Visually similar',
};
const KIND: Record<string, string> = { image: 'Images only', video: 'Videos only', svg: 'SVGs only' };
const label = (s: string): string => {
  const t = s.replace(/[_-]+/g, ' ').trim();
  return t ? `${t[0]!.toUpperCase()}${t.slice(1)}` : t;
};

/** True when the request is a plain browse of the library (no query, no similarity source). */
export function isBrowse(r: Request): boolean {
  return !r.query && !r.similar_to_asset_id;
}

/** "22 results" for a query, "22 assets" when browsing; "No results" / "No assets" at zero. */
export function countLabel(total: number, browsing: boolean): string {
  const noun = browsing ? 'asset' : 'result';
  if (total === 0) return `No ${noun}s`;
  return `${total} ${noun}${total === 1 ? '' : 's'}`;
}

/**
 * The effective request's filters as a person would say them ("Images only", "Category: Background",
 * "Landscape", "In file names"), for chips. Search internals (match strategy, page size) are left out,
 * except a fallback the user should know about.
 */
export function activeFilters(r: Request): string[] {
  const out: string[] = [];
  const mode = MODE[r.mode];
  if (mode) out.push(r.mode === 'similar' && r.similar_to_asset_id ? `${mode} to asset ${r.similar_to_asset_id.slice(0, 8)}` : mode);
  const kind = r.kind ? KIND[r.kind] : undefined;
  if (kind) out.push(kind);
  if (r.category) out.push(`Category: ${label(r.category)}`);
  if (r.subtype) out.push(`Type: ${label(r.subtype)}`);
  if (r.orientation) out.push(label(r.orientation));
  if (r.degraded_from) out.push(`${MODE[r.degraded_from] ?? label(r.degraded_from)} unavailable — showing word matches`);
  if ((r.match as string) === 'any_term') out.push('Matches some of your words');
  return out;
}
