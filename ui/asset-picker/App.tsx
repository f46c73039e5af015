import { useCallback, useEffect, useEffectEvent, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { ROUTER } from '../../shared/routers.ts';
import type { Asset, Orientation } from '../../shared/schemas/asset.ts';
import { ActionError } from '../lib/call-action.ts';
import { EmptyLibrary } from '../lib/EmptyLibrary.tsx';
import { ErrorNotice } from '../lib/ErrorNotice.tsx';
import { NoMatch } from '../lib/NoMatch.tsx';
import { Suggestions } from '../lib/Suggestions.tsx';
import { humanizeError, toolResultError, type HumanError } from '../lib/human-error.ts';
import { panelHeight } from '../lib/panel-layout.ts';
import { useAtelierApp } from '../lib/use-atelier-app.ts';
import { previewSizePx, useThumbnails } from '../lib/use-thumbnails.ts';
import { pickerActions } from './actions.ts';
import { Confirmed, type Handoff } from './Confirmed.tsx';
import { Facets, ShapeFilter } from './Facets.tsx';
import { confirmSelection, plural, type Chosen } from './handoff.ts';
import { PickerHeader, PickerLoading, PickerNotice } from './PickerStates.tsx';
import { GRID_VIEWPORT_PX, PickerGrid } from './PickerGrid.tsx';
import { startRequest } from './start-request.ts';
import { PAGE_SIZE, useAssetPages } from './use-asset-pages.ts';
import { useFacets } from './use-facets.ts';
import { usePendingToggle } from './use-pending-toggle.ts';
import { CAP_MESSAGE, MAX_SELECTION, useSelection } from './use-selection.ts';

type Phase = 'choosing' | 'submitting' | 'confirmed';

/** "3 assets selected: 1. a.jpg, 2. b.jpg, 3. c.jpg" — the first few names, then "and N more" (a 50-name line would push the buttons away). */
function summary(selection: Asset[]): string {
  if (selection.length === 0) return 'Nothing selected';
  const shown = selection
    .slice(0, 3)
    .map((a, i) => `${i + 1}. ${a.name}`)
    .join(', ');
  return `${plural(selection.length)} selected: ${shown}${selection.length > 3 ? `, and ${selection.length - 3} more` : ''}`;
}

/**
 * The asset picker for `svc_asset_select` `select` (spec §4.2): category browsing, search, a virtualized
 * multi-select grid with keyboard control and numbered selection badges (at most 50). On "Use selected"
 * it confirms through the app-only `submit_selection`, then tells the agent via
 * `ui/update-model-context` (the ordered list) and `ui/message` (which triggers the agent's turn), as in
 * research note §5.2 (option B), and says which of those actually happened. It renders from the tool
 * result whatever the host declared: a host without the MCP Apps extension gets candidates and no page,
 * and the panel loads the same search itself.
 */
export function AssetPickerApp() {
  const at = useAtelierApp('atelier-asset-picker', pickerActions);
  const select = useMemo(() => pickerActions.parse(ROUTER.assetSelect, 'select', at.toolResult), [at.toolResult]);
  const toolError = useMemo(() => toolResultError(at.toolResult), [at.toolResult]);
  const args = useMemo(() => (at.toolInput?.args ?? {}) as Record<string, unknown>, [at.toolInput]);
  const request = useMemo(() => (select ? startRequest(select.page, args) : null), [select, args]);
  const workspaceId = request?.workspace_id ?? (typeof args.workspace_id === 'string' ? args.workspace_id : undefined);
  const themeId = request?.theme_id;
  const kind = request?.kind ?? null;

  const [text, setText] = useState<string | null>(null);
  const [applied, setApplied] = useState<string | null>(null);
  const [category, setCategory] = useState<string | null>(null);
  const [subtype, setSubtype] = useState<string | null>(null);
  const [orientation, setOrientation] = useState<Orientation | null>(null);
  const [touched, setTouched] = useState(false);
  const [focusIndex, setFocusIndex] = useState(0);
  const [focusTick, setFocusTick] = useState(0);
  const [announce, setAnnounce] = useState('');
  const [phase, setPhase] = useState<Phase>('choosing');
  const [confirmed, setConfirmed] = useState<Chosen[]>([]);
  const [handoff, setHandoff] = useState<Handoff>({ message: 'unknown', context: false });
  const [submitError, setSubmitError] = useState<HumanError | null>(null);
  const [range, setRange] = useState<[number, number]>([0, 0]);
  const [cellPx, setCellPx] = useState(120);
  const searchRef = useRef<HTMLInputElement>(null);
  const [chromePx, setChromePx] = useState(0);
  // Everything but the grid's viewport is "chrome"; the grid gets what the host's height leaves (never < 160 px).
  // Measured whenever the panel's size changes (a callback ref with cleanup, React 19).
  const mainRef = useCallback((main: HTMLElement | null) => {
    if (!main) return;
    const measure = (): void => {
      const grid = main.querySelector<HTMLElement>('[data-testid="picker-grid"]');
      if (!grid) return;
      const chrome = main.scrollHeight - grid.offsetHeight;
      setChromePx((prev) => (Math.abs(chrome - prev) > 2 ? chrome : prev));
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(main);
    return () => ro.disconnect();
  }, []);
  // Only the host's own limit: the picker's grid is a fixed-height virtualized viewport already.
  const budget = panelHeight(at.hostContext, Infinity).maxPx;
  const gridPx = budget === null || chromePx === 0 ? GRID_VIEWPORT_PX : Math.max(160, Math.min(GRID_VIEWPORT_PX, budget - chromePx));

  // Initial view = the select call's own query and filters.
  useEffect(() => {
    if (!request || text !== null) return;
    setText(request.query ?? '');
    setApplied(request.query ?? '');
    setCategory(request.category ?? null);
    setSubtype(request.subtype ?? null);
    setOrientation(request.orientation);
  }, [request, text]);

  const query = useMemo(() => {
    if (!request || applied === null || !themeId) return null;
    const q: Record<string, unknown> = { theme_id: themeId, ...(workspaceId ? { workspace_id: workspaceId } : {}) };
    if (applied) q.query = applied;
    if (kind) q.kind = kind;
    if (orientation) q.orientation = orientation;
    if (category) q.category = category;
    if (subtype) q.subtype = subtype;
    if (!touched) {
      // Untouched picker: exactly the agent's request (mode, similar_to_asset_id), so its first page is reused.
      q.mode = args.mode ?? 'all';
      if (args.similar_to_asset_id) q.similar_to_asset_id = args.similar_to_asset_id;
    }
    return q;
  }, [request, applied, category, subtype, orientation, touched, themeId, workspaceId, kind, args.mode, args.similar_to_asset_id]);

  const pages = useAssetPages(at, query, touched ? null : (select?.page ?? null));
  const thumbs = useThumbnails(at, workspaceId, previewSizePx(Math.max(cellPx, 112)));
  const count = pages.total ?? pages.items.length;
  const sel = useSelection(phase === 'choosing', setAnnounce);
  const selection = sel.items;

  // Restore a confirmed picker after a remount (hosts may recreate the iframe and resend the result):
  // once per picker and connection, reading the latest result and scope.
  const restoreConfirmed = useEffectEvent(() => {
    if (!select || !at.connected) return;
    if (select.status === 'confirmed') {
      setConfirmed(select.selection);
      setPhase('confirmed');
      return;
    }
    at.callAction(ROUTER.assetSelect, 'get_selection', {
      picker_id: select.picker_id,
      ...(workspaceId ? { workspace_id: workspaceId } : {}),
    })
      .then((s) => {
        if (s.status === 'confirmed') {
          setConfirmed(s.selection);
          setPhase('confirmed');
        }
      })
      .catch(() => undefined);
  });
  const pickerId = select?.picker_id;
  useEffect(() => restoreConfirmed(), [pickerId, at.connected]);

  const { facets, retry: retryFacets } = useFacets(
    at,
    { applied: applied ?? '', kind, orientation, workspaceId, agentMode: args.mode, touched },
    query !== null,
  );

  /** Retry the failed page load, and the category counts if they failed too. */
  function retry(): void {
    pages.retry();
    if (facets === 'failed') retryFacets();
  }

  // Previews for the cells in view; pages ahead of the view (again when the preview size changes).
  const previewPx = previewSizePx(Math.max(cellPx, 112));
  const requestThumbs = useEffectEvent((ids: string[]) => thumbs.request(ids));
  const ensurePages = useEffectEvent((first: number, last: number) => pages.ensure(first, last));
  useEffect(() => {
    const [first, last] = range;
    requestThumbs(
      pages.items
        .slice(first, last + 1)
        .filter((a): a is Asset => a !== undefined)
        .map((a) => a.id),
    );
    ensurePages(first, last + PAGE_SIZE);
  }, [range, pages.items, previewPx]);

  const suggestions = pages.suggestions;
  useEffect(() => {
    if (suggestions.length) requestThumbs(suggestions.map((a) => a.id));
  }, [suggestions, previewPx]);

  const onVisible = useCallback((first: number, last: number) => setRange([first, last]), []);

  function restart(): void {
    setTouched(true);
    setFocusIndex(0);
  }

  function onSearch(e: FormEvent): void {
    e.preventDefault();
    const q = (text ?? '').trim();
    if (q !== applied) {
      restart();
      setApplied(q);
      setCategory(null);
      setSubtype(null);
    }
  }

  function onSearchKey(e: KeyboardEvent<HTMLInputElement>): void {
    if (e.key === 'ArrowDown' && count > 0) {
      e.preventDefault();
      setFocusTick((t) => t + 1);
    }
  }

  const toggle = usePendingToggle(pages.items, query, sel.toggle, setAnnounce);

  function move(target: number, extend: boolean): void {
    if (extend) sel.extend(pages.items, focusIndex, target);
    setFocusIndex(target);
    setFocusTick((t) => t + 1);
    pages.ensure(target, target + PAGE_SIZE);
  }

  async function confirm(): Promise<void> {
    if (phase !== 'choosing' || !select || !at.app) return;
    if (selection.length === 0) {
      setAnnounce('Select at least one asset first (Space selects the focused asset).');
      return;
    }
    setPhase('submitting');
    setSubmitError(null);
    try {
      const { chosen, handoff: told } = await confirmSelection(
        at,
        select.picker_id,
        selection.slice(0, MAX_SELECTION).map((a) => a.id),
        workspaceId,
      );
      setConfirmed(chosen);
      setHandoff(told);
      setPhase('confirmed');
      setAnnounce(
        told.message === 'sent'
          ? `Sent ${plural(chosen.length)} to the assistant.`
          : `Saved ${plural(chosen.length)}. Tell the assistant you are done.`,
      );
    } catch (e) {
      setPhase('choosing');
      setSubmitError(humanizeError(e));
    }
  }

  if (at.error)
    return (
      <main className="panel">
        <ErrorNotice error={{ ...humanizeError(at.error), message: 'This panel could not connect to its host.' }} />
      </main>
    );
  if (select && (phase === 'confirmed' || select.status === 'confirmed')) {
    return (
      <Confirmed
        chosen={phase === 'confirmed' ? confirmed : select.selection}
        handoff={handoff}
        pickerId={select.picker_id}
        announce={announce}
      />
    );
  }

  if (toolError || (at.toolResult && !select)) {
    const err = humanizeError(toolError ?? new ActionError('bad_result', null, 'the select result does not match this panel'));
    return (
      <PickerNotice>
        <ErrorNotice
          error={err}
          hint={
            err.retryable
              ? 'Ask the assistant to open the picker again.'
              : 'The assistant got this error too and can open the picker again with a corrected request.'
          }
        />
      </PickerNotice>
    );
  }
  if (at.cancelled)
    return (
      <PickerNotice>
        <p className="notice" role="status">
          The request was cancelled before the picker opened.
        </p>
      </PickerNotice>
    );
  if (select && select.delivery === 'elicitation') {
    return (
      <PickerNotice>
        <p className="notice" role="status">
          This choice was {select.status === 'cancelled' ? 'cancelled' : 'declined'} in a form your app showed instead of this panel;
          nothing was selected.
        </p>
      </PickerNotice>
    );
  }
  if (!select || (pages.total === null && !pages.error)) return <PickerLoading />;
  const browsingAll = !applied && !category && !subtype && !orientation && !args.similar_to_asset_id;
  if (pages.total === 0 && browsingAll) {
    return (
      <main className="panel picker">
        <PickerHeader status="0 assets" />
        <EmptyLibrary app={at.app} kind={kind} />
      </main>
    );
  }
  return (
    <main className="panel picker" aria-busy={pages.loading} ref={mainRef}>
      <PickerHeader status={pages.total === null ? '' : pages.total === 0 ? 'No matches' : plural(pages.total)} />
      <form className="search-form" role="search" onSubmit={onSearch}>
        <input
          ref={searchRef}
          type="search"
          aria-label="Search assets"
          placeholder="Search by name, tags, text…"
          value={text ?? ''}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onSearchKey}
          data-testid="picker-search"
        />
        <button type="submit">Search</button>
      </form>
      <Facets
        facets={facets}
        category={category}
        subtype={subtype}
        onChange={(c, s) => {
          restart();
          setCategory(c);
          setSubtype(s);
        }}
      />
      <ShapeFilter
        value={orientation}
        onChange={(o) => {
          restart();
          setOrientation(o);
        }}
      />
      {pages.error && pages.total === null ? (
        <ErrorNotice error={pages.error} onRetry={retry} />
      ) : count === 0 ? (
        <NoMatch app={at.app} query={applied || null} tryHint="Or try other words, another category or shape." />
      ) : (
        <PickerGrid
          items={pages.items}
          count={count}
          order={sel.order}
          focusIndex={Math.min(focusIndex, Math.max(0, count - 1))}
          focusTick={focusTick}
          thumbnail={thumbs.get}
          onVisible={onVisible}
          viewportPx={gridPx}
          onCellWidth={setCellPx}
          onMove={(t, extend) => move(t, extend)}
          onToggle={toggle}
          onConfirm={() => void confirm()}
          onClear={sel.clear}
          onFocusCell={setFocusIndex}
        />
      )}
      <Suggestions items={pages.suggestions} query={applied || null} thumbnail={thumbs.get} order={sel.order} onToggle={sel.toggle} />
      {pages.error && pages.total !== null && <ErrorNotice error={pages.error} onRetry={retry} />}
      {sel.capped && (
        <p className="notice" role="status" data-testid="selection-cap">
          {CAP_MESSAGE}
        </p>
      )}
      <div className="selection-bar">
        <span className="summary" data-testid="selection-summary">
          {summary(selection)}
        </span>
        <button type="button" onClick={sel.clear} disabled={selection.length === 0 || phase !== 'choosing'}>
          Clear
        </button>
        <button
          type="button"
          className="primary"
          data-testid="use-selected"
          onClick={() => void confirm()}
          disabled={selection.length === 0 || phase !== 'choosing'}
        >
          {phase === 'submitting' ? 'Sending…' : `Use selected${selection.length ? ` (${selection.length})` : ''}`}
        </button>
      </div>
      {submitError && <ErrorNotice error={submitError} onRetry={confirm} testId="submit-error" />}
      {count > 0 && (
        <p className="muted hint">
          Arrows move · Space selects · Shift+arrows extend · Enter uses the selection · Esc clears · up to {MAX_SELECTION}
        </p>
      )}
      <div role="status" aria-live="polite" className="sr-only" data-testid="live">
        {announce}
      </div>
    </main>
  );
}
