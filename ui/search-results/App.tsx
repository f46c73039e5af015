import { useEffect, useMemo, useState } from 'react';
import { ROUTER } from '../../shared/actions.ts';
import type { Asset, AssetPage, AssetPageSchema } from '../../shared/schemas/asset.ts';
import { ActionError, parseToolResult } from '../lib/call-action.ts';
import { useAtelierApp } from '../lib/use-atelier-app.ts';
import { useThumbnails } from '../lib/use-thumbnails.ts';
import { AssetCard } from './AssetCard.tsx';

type PageMeta = Omit<AssetPage, 'assets'>;

/** Filters of the effective request worth showing as chips. */
function activeFilters(r: AssetPage['request']): { label: string; value: string }[] {
  const out: { label: string; value: string }[] = [];
  if (r.mode !== 'all') out.push({ label: 'mode', value: r.mode });
  if (r.kind) out.push({ label: 'kind', value: r.kind });
  if (r.category) out.push({ label: 'category', value: r.category });
  if (r.subtype) out.push({ label: 'subtype', value: r.subtype });
  if (r.orientation) out.push({ label: 'orientation', value: r.orientation });
  if (r.similar_to_asset_id) out.push({ label: 'similar to', value: r.similar_to_asset_id.slice(0, 8) });
  if (r.degraded_from) out.push({ label: 'degraded from', value: r.degraded_from });
  return out;
}

/**
 * Read-only search result panel for `svc_asset_library` `search` (spec §1, §4.1): query, active filters,
 * result count, pagination state and previews; "Load more" fetches the next page with the same query.
 * It asks for no selection: the agent does not wait on it.
 */
export function SearchResultsApp() {
  const at = useAtelierApp('atelier-search-results');
  const [assets, setAssets] = useState<Asset[]>([]);
  const [meta, setMeta] = useState<PageMeta | null>(null);
  const [pagesLoaded, setPagesLoaded] = useState(0);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const thumbs = useThumbnails(at, meta?.request.workspace_id);

  useEffect(() => {
    if (!at.toolResult) return;
    const page = parseToolResult<typeof AssetPageSchema>(ROUTER.assetLibrary, 'search', at.toolResult);
    if (!page) {
      const text = at.toolResult.content?.find((c) => c.type === 'text');
      setError(text && 'text' in text ? text.text : 'The search failed.');
      return;
    }
    setAssets(page.assets);
    setMeta({ total: page.total, has_more: page.has_more, next_cursor: page.next_cursor, request: page.request });
    setPagesLoaded(1);
  }, [at.toolResult]);

  useEffect(() => {
    thumbs.request(assets.map((a) => a.id));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [assets, at.connected]);

  const baseArgs = useMemo(() => {
    const input = (at.toolInput?.args ?? {}) as Record<string, unknown>;
    if (!meta) return input;
    const r = meta.request;
    return {
      ...input,
      theme_id: r.theme_id,
      workspace_id: r.workspace_id,
      ...(r.query ? { query: r.query } : {}),
      ...(r.kind ? { kind: r.kind } : {}),
      ...(r.category ? { category: r.category } : {}),
      ...(r.subtype ? { subtype: r.subtype } : {}),
      ...(r.orientation ? { orientation: r.orientation } : {}),
      ...(r.similar_to_asset_id ? { similar_to_asset_id: r.similar_to_asset_id } : {}),
      limit: r.limit,
    };
  }, [at.toolInput, meta]);

  async function loadMore(): Promise<void> {
    if (!meta?.next_cursor || loading) return;
    setLoading(true);
    setError(null);
    try {
      const { brand_kit_id: _alias, ...args } = baseArgs as Record<string, unknown>;
      const page = await at.callAction<typeof AssetPageSchema>(ROUTER.assetLibrary, 'search', { ...args, cursor: meta.next_cursor });
      setAssets((prev) => [...prev, ...page.assets]);
      setMeta({ total: page.total, has_more: page.has_more, next_cursor: page.next_cursor, request: page.request });
      setPagesLoaded((n) => n + 1);
    } catch (e) {
      setError(e instanceof ActionError ? `${e.message}${e.field ? ` (${e.field})` : ''}` : String(e));
    } finally {
      setLoading(false);
    }
  }

  if (at.error) return <div className="panel error">Could not connect to the host: {at.error.message}</div>;
  const query = meta?.request.query ?? ((at.toolInput?.args as { query?: string } | undefined)?.query ?? null);
  const filters = meta ? activeFilters(meta.request) : [];
  return (
    <main className="panel search-panel" aria-busy={!meta || loading}>
      <header className="search-header">
        <h1 className="search-title" data-testid="query">
          {query ? <>Results for “{query}”</> : 'Browsing the library'}
        </h1>
        <p className="muted readonly-note">Read-only preview: nothing to choose here; the assistant is not waiting for you.</p>
      </header>
      {at.cancelled && <p className="error">The search was cancelled.</p>}
      {!meta && !error && !at.cancelled && <p className="muted" data-testid="pending">Searching…</p>}
      {meta && (
        <>
          <div className="row search-status">
            <strong data-testid="result-count">{meta.total === 1 ? '1 asset' : `${meta.total} assets`}</strong>
            <span className="muted" data-testid="pagination">
              showing {assets.length} of {meta.total} · {pagesLoaded} {pagesLoaded === 1 ? 'page' : 'pages'} of ≤ {meta.request.limit} loaded · {meta.has_more ? 'more available' : 'all loaded'}
            </span>
          </div>
          <ul className="row filters" data-testid="active-filters" aria-label="Active filters">
            {filters.length === 0 && <li className="muted">no filters</li>}
            {filters.map((f) => (
              <li key={f.label} className="chip">
                <span className="muted">{f.label}</span> {f.value}
              </li>
            ))}
            {meta.request.match !== 'browse' && <li className="chip"><span className="muted">matched</span> {meta.request.match.replace('_', ' ')}</li>}
          </ul>
          {assets.length === 0 ? (
            <p className="muted">No assets match. The assistant may generate or import one instead.</p>
          ) : (
            <ul className="result-grid" aria-label="Search results">
              {assets.map((a, i) => (
                <AssetCard key={a.id} asset={a} index={i} thumbnail={thumbs.get(a.id)} />
              ))}
            </ul>
          )}
          {meta.has_more && (
            <button type="button" className="load-more" data-testid="load-more" onClick={() => void loadMore()} disabled={loading}>
              {loading ? 'Loading…' : `Load ${Math.min(meta.request.limit, meta.total - assets.length)} more`}
            </button>
          )}
        </>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </main>
  );
}
