import { useCallback, useEffect, useEffectEvent, useRef, useState } from 'react';
import { ROUTER } from '../../shared/routers.ts';
import type { Asset, AssetPage } from '../../shared/schemas/asset.ts';
import { humanizeError, type HumanError } from '../lib/human-error.ts';
import type { AtelierApp } from '../lib/use-atelier-app.ts';
import type { pickerActions } from './actions.ts';

/** Search args of the picker's current view (query, kind, category, subtype, theme, workspace). */
export type PickerQuery = Record<string, unknown>;

/** Assets per page (the spec's maximum). */
export const PAGE_SIZE = 50;
/** Pages fetched at the same time. */
const MAX_IN_FLIGHT = 2;

export interface AssetPages {
  /** assets by result index; a hole (undefined) is not loaded yet */
  items: (Asset | undefined)[];
  /** matches across all pages (from the server), null before the first page */
  total: number | null;
  /** the first page's suggestions: nearest assets that are NOT matches (never in `items` or `total`) */
  suggestions: Asset[];
  loading: boolean;
  /** why the last page request failed (loading stops until `retry`) */
  error: HumanError | null;
  /** Load the pages covering indices `first`…`last` (the latest call wins; earlier ranges are dropped). */
  ensure(first: number, last: number): void;
  /** Clear the error and load again what was wanted when it failed. */
  retry(): void;
}

interface State {
  gen: number;
  /** any cursor of this query: it pins the snapshot every page reads; null until the first page */
  anchor: string | null;
  total: number | null;
  firstLoaded: boolean;
  loaded: Set<number>;
  inFlight: Set<number>;
  want: [number, number];
  /** the range wanted when a request failed, restored by retry */
  failedWant: [number, number] | null;
  /** a request failed: nothing more is asked until retry */
  stopped: boolean;
}

/**
 * Pages of a search result list for the picker, loaded by random access: the first page through
 * `svc_asset_library` `search` (or from the `select` result), any later page through the panel-only
 * `svc_asset_panel` `page` at its offset, with a cursor of the same query so all pages share one
 * snapshot. Jumping to the end of 10,000 assets loads one page, not 200. A change of `query` starts
 * over; responses for an older query are dropped.
 */
export function useAssetPages(
  at: AtelierApp<typeof pickerActions.schemas>,
  query: PickerQuery | null,
  initial: AssetPage | null,
): AssetPages {
  const [items, setItems] = useState<(Asset | undefined)[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [suggestions, setSuggestions] = useState<Asset[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<HumanError | null>(null);
  const st = useRef<State>({
    gen: 0,
    anchor: null,
    total: null,
    firstLoaded: false,
    loaded: new Set(),
    inFlight: new Set(),
    want: [0, 0],
    failedWant: null,
    stopped: false,
  });
  const { callAction } = at;

  const store = useCallback((gen: number, offset: number, page: AssetPage): void => {
    const s = st.current;
    if (gen !== s.gen) return;
    s.total = page.total;
    if (page.next_cursor && !s.anchor) s.anchor = page.next_cursor;
    setTotal(page.total);
    if (offset === 0) setSuggestions(page.suggestions);
    setItems((prev) => {
      const next = prev.slice();
      page.assets.forEach((a, i) => {
        next[offset + i] = a;
      });
      return next;
    });
  }, []);

  const pump = useCallback(
    (gen: number, q: PickerQuery): void => {
      const s = st.current;
      if (gen !== s.gen) return;
      const todo: number[] = [];
      if (s.stopped) return;
      if (!s.firstLoaded) {
        todo.push(0);
      } else if (s.total !== null && s.total > 0) {
        const last = Math.min(s.want[1], s.total - 1);
        for (let p = Math.floor(Math.max(0, s.want[0]) / PAGE_SIZE); p * PAGE_SIZE <= last; p++) if (!s.loaded.has(p)) todo.push(p);
      }
      for (const p of todo) {
        if (s.inFlight.size >= MAX_IN_FLIGHT) break;
        if (s.inFlight.has(p)) continue;
        if (p > 0 && !s.anchor) break; // everything fitted in the first page
        s.inFlight.add(p);
        setLoading(true);
        const anchor = s.anchor; // null only for the first page (the loop stops before later ones)
        const request = anchor
          ? callAction(ROUTER.assetPanel, 'page', { ...q, limit: PAGE_SIZE, offset: p * PAGE_SIZE, cursor: anchor })
          : callAction(ROUTER.assetLibrary, 'search', { ...q, limit: PAGE_SIZE });
        request
          .then((page) => {
            if (gen !== st.current.gen) return;
            s.loaded.add(p);
            if (p === 0) s.firstLoaded = true;
            store(gen, p * PAGE_SIZE, page);
          })
          .catch((e: unknown) => {
            if (gen !== st.current.gen) return;
            s.failedWant ??= s.want;
            s.want = [0, -1]; // stop asking until retry (or the next ensure)
            s.stopped = true;
            setError(humanizeError(e));
          })
          .finally(() => {
            if (gen !== st.current.gen) return;
            s.inFlight.delete(p);
            if (s.inFlight.size === 0) setLoading(false);
            pump(gen, q);
          });
      }
    },
    [callAction, store],
  );

  const key = query ? JSON.stringify(query) : null;
  // Start over when the query (by value) or the connection changes, from the latest query and first page.
  const startOver = useEffectEvent(() => {
    if (!query || !at.connected) return;
    const gen = st.current.gen + 1;
    const useInitial = initial !== null && gen === 1;
    st.current = {
      gen,
      anchor: null,
      total: null,
      firstLoaded: false,
      loaded: new Set(),
      inFlight: new Set(),
      want: [0, PAGE_SIZE - 1],
      failedWant: null,
      stopped: false,
    };
    setItems([]);
    setTotal(null);
    setSuggestions([]);
    setError(null);
    setLoading(false);
    if (useInitial) {
      // The select result's first page (its size is the select call's limit, possibly < 50).
      st.current.firstLoaded = true;
      st.current.anchor = initial.next_cursor;
      if (initial.assets.length >= Math.min(PAGE_SIZE, initial.total)) st.current.loaded.add(0);
      store(gen, 0, initial);
    }
    pump(gen, query);
  });
  useEffect(() => startOver(), [key, at.connected]);

  const ensure = useCallback(
    (first: number, last: number) => {
      if (!query) return;
      const s = st.current;
      if (s.stopped) {
        s.failedWant = [first, Math.max(first, last)]; // what retry will load
        return;
      }
      s.want = [first, Math.max(first, last)];
      pump(s.gen, query);
    },
    [query, pump],
  );

  const retry = useCallback(() => {
    if (!query) return;
    const s = st.current;
    s.stopped = false;
    s.want = s.failedWant ?? [0, PAGE_SIZE - 1];
    s.failedWant = null;
    setError(null);
    pump(s.gen, query);
  }, [query, pump]);

  return { items, total, suggestions, loading, error, ensure, retry };
}
