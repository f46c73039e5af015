import { useCallback, useEffect, useRef, useState } from 'react';
import { ROUTER } from '../../shared/actions.ts';
import type { Asset, AssetPage, AssetPageSchema } from '../../shared/schemas/asset.ts';
import { ActionError } from '../lib/call-action.ts';
import type { AtelierApp } from '../lib/use-atelier-app.ts';

/** Search args of the picker's current view (query, kind, category, subtype, theme, workspace). */
export type PickerQuery = Record<string, unknown>;

export interface AssetPages {
  /** loaded assets in result order; indices ≥ items.length are not loaded yet */
  items: Asset[];
  /** matches across all pages (from the server), null before the first page */
  total: number | null;
  loading: boolean;
  error: string | null;
  /** Load pages (≤ 50 each, cursor-chained) until `index` is loaded or the results end. */
  ensure(index: number): void;
}

/**
 * Pages of `svc_asset_library` `search` for the picker. The first page may come from the `select`
 * result; later pages follow `next_cursor` one at a time (cursors are opaque and bound to the query,
 * so pages load in order). A change of `query` starts over; responses for an older query are dropped.
 */
export function useAssetPages(at: AtelierApp, query: PickerQuery | null, initial: AssetPage | null): AssetPages {
  const [items, setItems] = useState<Asset[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const st = useRef({ gen: 0, cursor: null as string | null, hasMore: true, busy: false, want: 0, loaded: 0 });
  const { callAction } = at;

  const pump = useCallback(
    (gen: number, q: PickerQuery): void => {
      const s = st.current;
      if (s.busy || gen !== s.gen || !s.hasMore || s.loaded > s.want) return;
      s.busy = true;
      setLoading(true);
      callAction<typeof AssetPageSchema>(ROUTER.assetLibrary, 'search', { ...q, limit: 50, ...(s.cursor ? { cursor: s.cursor } : {}) })
        .then((page) => {
          if (gen !== st.current.gen) return;
          s.cursor = page.next_cursor;
          s.hasMore = page.has_more;
          s.loaded += page.assets.length;
          setItems((prev) => [...prev, ...page.assets]);
          setTotal(page.total);
        })
        .catch((e: unknown) => {
          if (gen !== st.current.gen) return;
          s.hasMore = false;
          setError(e instanceof ActionError ? e.message : String(e));
        })
        .finally(() => {
          if (gen !== st.current.gen) return;
          s.busy = false;
          setLoading(false);
          pump(gen, q);
        });
    },
    [callAction],
  );

  const key = query ? JSON.stringify(query) : null;
  useEffect(() => {
    if (!query || !at.connected) return;
    const gen = ++st.current.gen;
    const useInitial = initial && st.current.gen === 1;
    st.current = { gen, cursor: useInitial ? initial.next_cursor : null, hasMore: useInitial ? initial.has_more : true, busy: false, want: 0, loaded: useInitial ? initial.assets.length : 0 };
    setItems(useInitial ? initial.assets : []);
    setTotal(useInitial ? initial.total : null);
    setError(null);
    setLoading(false);
    if (!useInitial) pump(gen, query);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, at.connected]);

  const ensure = useCallback(
    (index: number) => {
      if (!query) return;
      const s = st.current;
      if (index > s.want) s.want = index;
      pump(s.gen, query);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [key, pump],
  );

  return { items, total, loading, error, ensure };
}
