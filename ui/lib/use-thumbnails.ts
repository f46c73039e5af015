import { useCallback, useEffect, useRef, useState } from 'react';
import { ROUTER } from '../../shared/routers.ts';
import type { ThumbnailsResultSchema } from '../../shared/schemas/panel.ts';
import type { AtelierApp } from './use-atelier-app.ts';

/** Largest batch the `thumbnails` action accepts. */
const BATCH = 50;
/** Smaller batches once previews exceed the 320 px thumbnail (WebP renditions are several times larger). */
const BATCH_LARGE = 20;
/** Device px the stored 320 px thumbnail covers on its shorter edge in the worst common case (3:2 photos). */
const THUMB_SHORT_EDGE_PX = 213;
/** Requests are rounded up to this step so a resize by a few px does not refetch every preview. */
const STEP_PX = 64;

/**
 * Device px a preview needs so a `cellPx` CSS-px cover-fitted cell stays sharp on this screen
 * (`cellPx × devicePixelRatio`, rounded up to 64 px), or undefined when the stored 320 px thumbnail
 * already covers it. Source: srcset density selection (HTML "Images": pick by device pixel ratio).
 */
export function previewSizePx(
  cellPx: number,
  dpr: number = typeof window === 'undefined' ? 1 : window.devicePixelRatio || 1,
): number | undefined {
  const need = Math.ceil((cellPx * dpr) / STEP_PX) * STEP_PX;
  return need <= THUMB_SHORT_EDGE_PX ? undefined : Math.min(1280, need);
}

interface Entry {
  url: string | null;
  size: number;
}

/** What this hook calls: `svc_asset_panel` `thumbnails`. */
export type ThumbnailSchemas = { readonly svc_asset_panel: { readonly thumbnails: typeof ThumbnailsResultSchema } };

/**
 * Preview `data:` URLs for asset ids, fetched through the app-only `svc_asset_panel` `thumbnails`
 * action in batches and cached for the panel's lifetime. `sizePx` (from `previewSizePx`) asks for a
 * rendition that covers the cell on high-DPI screens; when it grows (a wider layout, a zoom), cached
 * previews are fetched again at the new size, never downgraded. `request(ids)` is cheap to call
 * repeatedly. `get(id)` returns the URL, `null` when the asset has no preview, or `undefined` while loading.
 */
export function useThumbnails(
  at: AtelierApp<ThumbnailSchemas>,
  workspaceId: string | undefined,
  sizePx?: number,
): { get: (id: string) => string | null | undefined; request: (ids: string[]) => void } {
  const cache = useRef(new Map<string, Entry>());
  const inflight = useRef(new Set<string>());
  const [, setVersion] = useState(0);
  const { callAction, connected } = at;
  const pending = useRef<string[]>([]);
  const size = sizePx ?? 0;

  const flush = useCallback(() => {
    if (!connected) return;
    const ids = [...new Set(pending.current)].filter((id) => !inflight.current.has(id) && (cache.current.get(id)?.size ?? -1) < size);
    pending.current = [];
    const batchSize = size > 0 ? BATCH_LARGE : BATCH;
    for (let i = 0; i < ids.length; i += batchSize) {
      const batch = ids.slice(i, i + batchSize);
      batch.forEach((id) => inflight.current.add(id));
      callAction(ROUTER.assetPanel, 'thumbnails', {
        asset_ids: batch,
        ...(size > 0 ? { size_px: size } : {}),
        ...(workspaceId ? { workspace_id: workspaceId } : {}),
      })
        .then((r) => {
          for (const t of r.thumbnails) cache.current.set(t.asset_id, { url: t.data_url, size });
          for (const id of r.not_found) cache.current.set(id, { url: null, size });
        })
        .catch(() =>
          batch.forEach((id) => {
            // Keep an older preview when a refresh at a larger size fails; retry on the next request.
            if (!cache.current.has(id)) cache.current.set(id, { url: null, size: -1 });
          }),
        )
        .finally(() => {
          batch.forEach((id) => inflight.current.delete(id));
          setVersion((v) => v + 1);
        });
    }
  }, [callAction, connected, workspaceId, size]);

  useEffect(() => {
    if (connected && pending.current.length) flush();
  }, [connected, flush]);

  return {
    get: (id) => cache.current.get(id)?.url,
    request: (ids) => {
      pending.current.push(...ids);
      queueMicrotask(flush);
    },
  };
}
