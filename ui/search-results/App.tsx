import { useCallback, useEffect, useEffectEvent, useMemo, useRef, useState } from 'react';
import { ROUTER } from '../../shared/routers.ts';
import type { Asset, AssetPage } from '../../shared/schemas/asset.ts';
import { EmptyLibrary } from '../lib/EmptyLibrary.tsx';
import { ErrorNotice } from '../lib/ErrorNotice.tsx';
import { NoMatch } from '../lib/NoMatch.tsx';
import { Suggestions } from '../lib/Suggestions.tsx';
import { humanizeError, toolResultError, type HumanError } from '../lib/human-error.ts';
import { panelHeight, useElementWidth } from '../lib/panel-layout.ts';
import { useAtelierApp } from '../lib/use-atelier-app.ts';
import { previewSizePx, useThumbnails } from '../lib/use-thumbnails.ts';
import { searchActions } from './actions.ts';
import { AssetCard } from './AssetCard.tsx';
import { activeFilters, countLabel, isBrowse } from './wording.ts';

type PageMeta = Omit<AssetPage, 'assets' | 'suggestions'>;

/** Grid geometry of `.result-grid`, CSS px (kept in step with search-results.css). */
const CARD_MIN_PX = 132;
const GAP_PX = 10;

/**
 * Read-only search result panel for `svc_asset_library` `search` (spec §1, §4.1): query, active filters,
 * result count, showing-x-of-y and previews; no match said in words with the next step, and the search's
 * suggestions (near non-matches) in their own section, never counted; "Load more" fetches the next page with the same query. It
 * asks for no selection: the agent does not wait on it. It stays within the host's container height
 * (the result list scrolls inside, "Load more" stays in view), and says what went wrong in words with a
 * Retry when retrying can help.
 */
export function SearchResultsApp() {
  const at = useAtelierApp('atelier-search-results', searchActions);
  const [assets, setAssets] = useState<Asset[]>([]);
  const [suggestions, setSuggestions] = useState<Asset[]>([]);
  const [meta, setMeta] = useState<PageMeta | null>(null);
  const [loading, setLoading] = useState(false);
  const [failure, setFailure] = useState<{ error: HumanError; retry: () => Promise<void>; initial: boolean } | null>(null);
  const [gridRef, gridWidth] = useElementWidth<HTMLUListElement>();
  const scrollRef = useRef<HTMLDivElement>(null);
  const input = useMemo(() => (at.toolInput?.args ?? {}) as Record<string, unknown>, [at.toolInput]);
  const cols = Math.max(1, Math.floor((gridWidth + GAP_PX) / (CARD_MIN_PX + GAP_PX)));
  const cardPx = gridWidth ? (gridWidth - (cols - 1) * GAP_PX) / cols : CARD_MIN_PX;
  const thumbs = useThumbnails(at, meta?.request.workspace_id, previewSizePx(cardPx));

  const show = useCallback((page: AssetPage, append: boolean) => {
    setAssets((prev) => (append ? [...prev, ...page.assets] : page.assets));
    // Suggestions come with the first page only (and never count as results).
    if (!append) setSuggestions(page.suggestions);
    setMeta({
      total: page.total,
      total_is_estimate: page.total_is_estimate,
      has_more: page.has_more,
      next_cursor: page.next_cursor,
      request: page.request,
    });
  }, []);

  /** The agent's search again, from the panel (after a failed tool call). */
  const rerun = useCallback(async (): Promise<void> => {
    const { brand_kit_id: alias, ...args } = input;
    try {
      const page = await at.callAction(ROUTER.assetLibrary, 'search', {
        ...args,
        ...(typeof alias === 'string' && !args.theme_id ? { theme_id: alias } : {}),
      });
      setFailure(null);
      show(page, false);
    } catch (e) {
      setFailure({ error: humanizeError(e), retry: rerun, initial: true });
    }
  }, [at, input, show]);

  // Each tool result (the agent's search) is shown once; Retry reruns the latest request.
  const onToolResult = useEffectEvent((toolResult: typeof at.toolResult) => {
    if (!toolResult) return;
    const err = toolResultError(toolResult);
    if (err) {
      setFailure({ error: humanizeError(err), retry: rerun, initial: true });
      return;
    }
    const page = searchActions.parse(ROUTER.assetLibrary, 'search', toolResult);
    if (!page) {
      setFailure({
        error: humanizeError(toolResultError({ ...toolResult, isError: true }) ?? new Error('unexpected result')),
        retry: rerun,
        initial: true,
      });
      return;
    }
    setFailure(null);
    show(page, false);
  });
  const toolResult = at.toolResult;
  useEffect(() => onToolResult(toolResult), [toolResult]);

  // Previews for every card shown, again when the connection or the preview size changes.
  const requestThumbs = useEffectEvent((ids: string[]) => thumbs.request(ids));
  const previewPx = previewSizePx(cardPx);
  useEffect(() => {
    requestThumbs([...assets, ...suggestions].map((a) => a.id));
  }, [assets, suggestions, at.connected, previewPx]);

  const baseArgs = useMemo(() => {
    if (!meta) return input;
    const r = meta.request;
    const { brand_kit_id: _alias, ...rest } = input;
    return {
      ...rest,
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
  }, [input, meta]);

  async function loadMore(): Promise<void> {
    if (!meta?.next_cursor || loading) return;
    setLoading(true);
    const first = assets.length;
    try {
      const page = await at.callAction(ROUTER.assetLibrary, 'search', { ...baseArgs, cursor: meta.next_cursor });
      setFailure(null);
      show(page, true);
      // Bring the first new result into view inside the list (the button stays where it is).
      requestAnimationFrame(() => {
        const card = scrollRef.current?.querySelector<HTMLElement>(`[data-index="${first}"]`);
        if (card && scrollRef.current) scrollRef.current.scrollTop = card.offsetTop - scrollRef.current.offsetTop - 4;
      });
    } catch (e) {
      setFailure({ error: humanizeError(e), retry: loadMore, initial: false });
    } finally {
      setLoading(false);
    }
  }

  const height = panelHeight(at.hostContext);
  const style = height.maxPx === null ? undefined : height.fixed ? { height: height.maxPx } : { maxHeight: height.maxPx };
  if (at.error) {
    return (
      <main className="panel">
        <ErrorNotice error={{ ...humanizeError(at.error), message: 'This panel could not connect to its host.' }} />
      </main>
    );
  }
  const query = meta?.request.query ?? ((input.query as string | undefined) || null);
  const filters = meta ? activeFilters(meta.request) : [];
  const browsing = meta ? isBrowse(meta.request) : false;
  return (
    <main className="panel search-panel" aria-busy={(!meta && !failure) || loading} style={style} data-bounded={height.maxPx !== null}>
      <header className="search-header">
        <h1 className="search-title" data-testid="query">
          {query ? <>Results for “{query}”</> : 'Your asset library'}
        </h1>
        <p className="muted readonly-note">Read-only preview: nothing to choose here; the assistant is not waiting for you.</p>
      </header>
      {at.cancelled && (
        <p className="notice" role="status">
          The search was cancelled before it finished.
        </p>
      )}
      {!meta && !failure && !at.cancelled && (
        <p className="muted loading" role="status" data-testid="pending">
          {query ? `Searching for “${query}”…` : 'Loading your library…'}
        </p>
      )}
      {failure?.initial && (
        <ErrorNotice
          error={failure.error}
          onRetry={failure.retry}
          hint={failure.error.retryable ? undefined : 'The assistant got this error too and can search again with a corrected request.'}
        />
      )}
      {meta && (
        <>
          <div className="row search-status">
            <strong data-testid="result-count">
              {meta.total_is_estimate ? 'About ' : ''}
              {countLabel(meta.total, browsing)}
            </strong>
            <span className="muted" data-testid="pagination">
              {meta.total > 0 ? `Showing ${assets.length} of ${meta.total}` : ''}
            </span>
          </div>
          {filters.length > 0 && (
            <ul className="row filters" data-testid="active-filters" aria-label="Active filters">
              {filters.map((f) => (
                <li key={f} className="chip">
                  {f}
                </li>
              ))}
            </ul>
          )}
          {assets.length === 0 ? (
            browsing && filters.length === 0 ? (
              <EmptyLibrary app={at.app} />
            ) : (
              <NoMatch app={at.app} query={query} />
            )
          ) : (
            <div
              className="results-scroll"
              ref={scrollRef}
              tabIndex={0}
              role="region"
              aria-label="Results (scrollable)"
              data-testid="results-scroll"
            >
              <ul className="result-grid" ref={gridRef} aria-label="Search results">
                {assets.map((a, i) => (
                  <AssetCard key={a.id} asset={a} index={i} thumbnail={thumbs.get(a.id)} />
                ))}
              </ul>
            </div>
          )}
          <Suggestions items={suggestions} query={query} thumbnail={thumbs.get} scrolls={height.maxPx !== null} />
          {failure && !failure.initial && <ErrorNotice error={failure.error} onRetry={failure.retry} />}
          {meta.has_more && (
            <button type="button" className="load-more" data-testid="load-more" onClick={() => void loadMore()} disabled={loading}>
              {loading ? 'Loading…' : `Load ${Math.min(meta.request.limit, meta.total - assets.length)} more`}
            </button>
          )}
        </>
      )}
    </main>
  );
}
