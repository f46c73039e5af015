import { useCallback, useEffect, useRef, useState } from 'react';
import { ROUTER } from '../../shared/actions.ts';
import type { ThumbnailsResultSchema } from '../../shared/schemas/panel.ts';
import type { AtelierApp } from './use-atelier-app.ts';

/** Largest batch the `thumbnails` action accepts. */
const BATCH = 50;

/**
 * Preview `data:` URLs for asset ids, fetched through the app-only `svc_asset_panel` `thumbnails` action
 * in batches of ≤ 50 and cached for the panel's lifetime. `request(ids)` is cheap to call repeatedly
 * (ids already cached or in flight are skipped). `get(id)` returns the URL, `null` when the asset has no
 * preview, or `undefined` while loading.
 */
export function useThumbnails(at: AtelierApp, workspaceId: string | undefined): { get(id: string): string | null | undefined; request(ids: string[]): void } {
  const cache = useRef(new Map<string, string | null>());
  const inflight = useRef(new Set<string>());
  const [, setVersion] = useState(0);
  const { callAction, connected } = at;
  const pending = useRef<string[]>([]);

  const flush = useCallback(() => {
    if (!connected) return;
    const ids = pending.current.filter((id) => !cache.current.has(id) && !inflight.current.has(id));
    pending.current = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      batch.forEach((id) => inflight.current.add(id));
      callAction<typeof ThumbnailsResultSchema>(ROUTER.assetPanel, 'thumbnails', { asset_ids: batch, ...(workspaceId ? { workspace_id: workspaceId } : {}) })
        .then((r) => {
          for (const t of r.thumbnails) cache.current.set(t.asset_id, t.data_url);
          for (const id of r.not_found) cache.current.set(id, null);
        })
        .catch(() => batch.forEach((id) => cache.current.set(id, null)))
        .finally(() => {
          batch.forEach((id) => inflight.current.delete(id));
          setVersion((v) => v + 1);
        });
    }
  }, [callAction, connected, workspaceId]);

  useEffect(() => {
    if (connected && pending.current.length) flush();
  }, [connected, flush]);

  return {
    get: (id) => cache.current.get(id),
    request: (ids) => {
      pending.current.push(...ids);
      queueMicrotask(flush);
    },
  };
}
