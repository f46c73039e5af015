import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { ROUTER } from '../../shared/actions.ts';
import type { Asset, Orientation } from '../../shared/schemas/asset.ts';
import type { FacetsResult, FacetsResultSchema, SelectedAsset, SelectionStateSchema, SelectResultSchema, SubmitSelectionResultSchema } from '../../shared/schemas/panel.ts';
import { ActionError, parseToolResult } from '../lib/call-action.ts';
import { useAtelierApp } from '../lib/use-atelier-app.ts';
import { useThumbnails } from '../lib/use-thumbnails.ts';
import { Facets, ShapeFilter } from './Facets.tsx';
import { travelled } from './grid-nav.ts';
import { PickerGrid } from './PickerGrid.tsx';
import { PAGE_SIZE, useAssetPages } from './use-asset-pages.ts';

type Phase = 'choosing' | 'submitting' | 'confirmed';
type Chosen = Pick<SelectedAsset, 'id' | 'name' | 'original_url'>;

const plural = (n: number): string => `${n} asset${n === 1 ? '' : 's'}`;

/** The ordered selection as text for the agent: one line per asset with name, id and original URL. */
function selectionLines(chosen: Chosen[]): string {
  return chosen.map((a, i) => `${i + 1}. ${a.name} (id ${a.id}) ${a.original_url}`).join('\n');
}

/**
 * The asset picker for `svc_asset_select` `select` (spec §4.2): category browsing, search, a virtualized
 * multi-select grid with keyboard control and numbered selection badges. On "Use selected" it confirms
 * through the app-only `submit_selection`, then tells the agent via `ui/update-model-context` (the
 * ordered list) and `ui/message` (which triggers the agent's turn), as in research note §5.2 (option B).
 */
export function AssetPickerApp() {
  const at = useAtelierApp('atelier-asset-picker');
  const select = useMemo(() => parseToolResult<typeof SelectResultSchema>(ROUTER.assetSelect, 'select', at.toolResult ?? undefined), [at.toolResult]);
  const args = (at.toolInput?.args ?? {}) as Record<string, unknown>;
  const request = select?.page?.request;
  const workspaceId = request?.workspace_id ?? (args.workspace_id as string | undefined);
  const themeId = request?.theme_id ?? ((args.theme_id ?? args.brand_kit_id) as string | undefined);

  const [text, setText] = useState<string | null>(null);
  const [applied, setApplied] = useState<string | null>(null);
  const [category, setCategory] = useState<string | null>(null);
  const [subtype, setSubtype] = useState<string | null>(null);
  const [orientation, setOrientation] = useState<Orientation | null>(null);
  const [touched, setTouched] = useState(false);
  const [facets, setFacets] = useState<FacetsResult | null>(null);
  const [selection, setSelection] = useState<Asset[]>([]);
  const [focusIndex, setFocusIndex] = useState(0);
  const [focusTick, setFocusTick] = useState(0);
  const [announce, setAnnounce] = useState('');
  const [phase, setPhase] = useState<Phase>('choosing');
  const [confirmed, setConfirmed] = useState<Chosen[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [range, setRange] = useState<[number, number]>([0, 0]);
  const searchRef = useRef<HTMLInputElement>(null);

  // Initial view = the select call's own query and filters.
  useEffect(() => {
    if (!request || text !== null) return;
    setText(request.query ?? '');
    setApplied(request.query ?? '');
    setCategory(request.category);
    setSubtype(request.subtype);
    setOrientation(request.orientation);
  }, [request, text]);

  const query = useMemo(() => {
    if (!request || applied === null || !themeId) return null;
    const q: Record<string, unknown> = { theme_id: themeId, ...(workspaceId ? { workspace_id: workspaceId } : {}) };
    if (applied) q.query = applied;
    if (request.kind) q.kind = request.kind;
    if (orientation) q.orientation = orientation;
    if (category) q.category = category;
    if (subtype) q.subtype = subtype;
    if (!touched) {
      // Untouched picker: exactly the agent's request (mode, similar_to_asset_id), so its first page is reused.
      q.mode = args.mode ?? 'all';
      if (args.similar_to_asset_id) q.similar_to_asset_id = args.similar_to_asset_id;
    }
    return q;
  }, [request, applied, category, subtype, orientation, touched, themeId, workspaceId, args.mode, args.similar_to_asset_id]);

  const pages = useAssetPages(at, query, touched ? null : (select?.page ?? null));
  const thumbs = useThumbnails(at, workspaceId);
  const count = pages.total ?? pages.items.length;
  const order = useMemo(() => new Map(selection.map((a, i) => [a.id, i + 1])), [selection]);

  // Restore a confirmed picker after a remount (hosts may recreate the iframe and resend the result).
  useEffect(() => {
    if (!select || !at.connected) return;
    if (select.status === 'confirmed') {
      setConfirmed(select.selection);
      setPhase('confirmed');
      return;
    }
    at.callAction<typeof SelectionStateSchema>(ROUTER.assetSelect, 'get_selection', { picker_id: select.picker_id, ...(workspaceId ? { workspace_id: workspaceId } : {}) })
      .then((s) => {
        if (s.status === 'confirmed') {
          setConfirmed(s.selection);
          setPhase('confirmed');
        }
      })
      .catch(() => undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [select?.picker_id, at.connected]);

  useEffect(() => {
    if (!query || !at.connected) return;
    let live = true;
    at.callAction<typeof FacetsResultSchema>(ROUTER.assetPanel, 'facets', { ...(applied ? { query: applied } : {}), ...(request?.kind ? { kind: request.kind } : {}), ...(orientation ? { orientation } : {}), ...(workspaceId ? { workspace_id: workspaceId } : {}) })
      .then((f) => live && setFacets(f))
      .catch(() => live && setFacets(null));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [applied, request?.kind, orientation, workspaceId, at.connected]);

  // Previews for the cells in view; pages ahead of the view.
  useEffect(() => {
    const [first, last] = range;
    thumbs.request(pages.items.slice(first, last + 1).filter((a): a is Asset => a !== undefined).map((a) => a.id));
    pages.ensure(first, last + PAGE_SIZE);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [range, pages.items]);

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

  function toggle(index: number): void {
    if (phase !== 'choosing') return;
    const a = pages.items[index];
    if (!a) return;
    const removing = selection.some((x) => x.id === a.id);
    const next = removing ? selection.filter((x) => x.id !== a.id) : [...selection, a];
    setSelection(next);
    setAnnounce(`${removing ? 'Removed' : 'Selected'} ${a.name}${removing ? '' : ` as number ${next.length}`}. ${plural(next.length)} selected.`);
  }

  function move(target: number, extend: boolean): void {
    if (extend && phase === 'choosing') {
      const have = new Set(selection.map((a) => a.id));
      const add: Asset[] = [];
      for (const i of travelled(focusIndex, target)) {
        const a = pages.items[i];
        if (a && !have.has(a.id)) {
          have.add(a.id);
          add.push(a);
        }
      }
      if (add.length) {
        const next = [...selection, ...add];
        setSelection(next);
        setAnnounce(`${plural(next.length)} selected.`);
      }
    }
    setFocusIndex(target);
    setFocusTick((t) => t + 1);
    pages.ensure(target, target + PAGE_SIZE);
  }

  function clear(): void {
    if (phase !== 'choosing' || selection.length === 0) return;
    setSelection([]);
    setAnnounce('Selection cleared. 0 assets selected.');
  }

  async function confirm(): Promise<void> {
    if (phase !== 'choosing' || !select || !at.app) return;
    if (selection.length === 0) {
      setAnnounce('Select at least one asset first (Space selects the focused asset).');
      return;
    }
    setPhase('submitting');
    setError(null);
    try {
      const state = await at.callAction<typeof SubmitSelectionResultSchema>(ROUTER.assetPanel, 'submit_selection', {
        picker_id: select.picker_id,
        asset_ids: selection.map((a) => a.id),
        ...(workspaceId ? { workspace_id: workspaceId } : {}),
      });
      const chosen = state.selection;
      setConfirmed(chosen);
      setPhase('confirmed');
      setAnnounce(`Confirmed ${plural(chosen.length)}. Sent to the assistant.`);
      const lines = selectionLines(chosen);
      // The choice is stored; telling the conversation is best effort (hosts may lack or refuse either request).
      try {
        await at.app.updateModelContext({
          content: [{ type: 'text', text: `Asset picker ${select.picker_id}: the user confirmed ${plural(chosen.length)}, in this order:\n${lines}` }],
          structuredContent: { picker_id: select.picker_id, selection: chosen.map((a, i) => ({ position: i + 1, id: a.id, name: a.name, original_url: a.original_url })) },
        });
      } catch {
        /* model context is optional: the message and get_selection still carry the choice */
      }
      let delivered = false;
      if (at.app.getHostCapabilities()?.message) {
        try {
          const sent = await at.app.sendMessage({ role: 'user', content: [{ type: 'text', text: `I selected ${plural(chosen.length)} (picker ${select.picker_id}), in this order:\n${lines}` }] }, { timeout: 10_000 });
          delivered = !sent.isError;
        } catch {
          delivered = false;
        }
      }
      if (!delivered) setNotice('Tell the assistant you are done: it can read your choice with get_selection.');
    } catch (e) {
      setPhase('choosing');
      setError(e instanceof ActionError ? `${e.message}${e.field ? ` (${e.field})` : ''}` : String(e));
    }
  }

  if (at.error) return <div className="panel error">Could not connect to the host: {at.error.message}</div>;
  if (phase === 'confirmed') {
    return (
      <main className="panel" data-testid="confirmed">
        <h1 className="confirmed-title">Selection sent</h1>
        <p className="muted">The assistant received {plural(confirmed.length)} in this order:</p>
        <ol className="chosen" data-testid="confirmed-list">
          {confirmed.map((a) => (
            <li key={a.id}>{a.name}</li>
          ))}
        </ol>
        {notice && <p className="hint">{notice}</p>}
        <div role="status" aria-live="polite" className="sr-only" data-testid="live">{announce}</div>
      </main>
    );
  }
  return (
    <main className="panel picker" aria-busy={pages.loading}>
      <div className="picker-header">
        <h1>Choose assets</h1>
        <span className="muted" data-testid="match-count">{pages.total === null ? 'Loading…' : `${plural(pages.total)}`}</span>
      </div>
      {at.cancelled && <p className="error">The request was cancelled.</p>}
      {select && select.delivery !== 'panel' && <p className="muted">This picker was answered without the panel ({select.delivery}).</p>}
      <form className="search-form" role="search" onSubmit={onSearch}>
        <input ref={searchRef} type="search" aria-label="Search assets" placeholder="Search by name, tags, text…" value={text ?? ''} onChange={(e) => setText(e.target.value)} onKeyDown={onSearchKey} data-testid="picker-search" />
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
      {count === 0 && !pages.loading ? (
        <p className="muted" data-testid="empty">No assets match. Try other words or another category.</p>
      ) : (
        <PickerGrid
          items={pages.items}
          count={count}
          order={order}
          focusIndex={Math.min(focusIndex, Math.max(0, count - 1))}
          focusTick={focusTick}
          thumbnail={thumbs.get}
          onVisible={onVisible}
          onMove={(t, extend) => move(t, extend)}
          onToggle={toggle}
          onConfirm={() => void confirm()}
          onClear={clear}
          onFocusCell={setFocusIndex}
        />
      )}
      {pages.error && <p className="error" role="alert">{pages.error}</p>}
      <div className="selection-bar">
        <span className="summary" data-testid="selection-summary">
          {selection.length === 0 ? 'Nothing selected' : `${plural(selection.length)} selected: ${selection.map((a, i) => `${i + 1}. ${a.name}`).join(', ')}`}
        </span>
        <button type="button" onClick={clear} disabled={selection.length === 0 || phase !== 'choosing'}>Clear</button>
        <button type="button" className="primary" data-testid="use-selected" onClick={() => void confirm()} disabled={selection.length === 0 || phase !== 'choosing'}>
          {phase === 'submitting' ? 'Sending…' : `Use selected${selection.length ? ` (${selection.length})` : ''}`}
        </button>
      </div>
      <p className="muted hint">Arrows move · Space selects · Shift+arrows extend · Enter uses the selection · Esc clears</p>
      {error && <p className="error" role="alert">{error}</p>}
      <div role="status" aria-live="polite" className="sr-only" data-testid="live">{announce}</div>
    </main>
  );
}
