import { useEffect, useState } from 'react';
import { ROUTER } from '../../shared/routers.ts';
import { SearchModeSchema, type AssetKind, type Orientation } from '../../shared/schemas/asset.ts';
import type { FacetsResult } from '../../shared/schemas/panel.ts';
import type { AtelierApp } from '../lib/use-atelier-app.ts';
import type { pickerActions } from './actions.ts';

/** What the category counts follow: the header's search, kind and shape, and (untouched picker) the agent's mode. */
export interface FacetsQuery {
  /** the applied words ('' = browse) */
  applied: string;
  kind: AssetKind | null;
  orientation: Orientation | null;
  workspaceId: string | undefined;
  /** the agent's `mode`, used while the user has not changed the search */
  agentMode: unknown;
  touched: boolean;
}

/**
 * Category and subtype counts of the picker (`svc_asset_panel` `facets`) for the current search; null
 * while loading, 'failed' when the call failed (`retry` asks again). Responses to an older search are
 * dropped. `enabled` is false until the picker knows its scope.
 */
export function useFacets(
  at: AtelierApp<typeof pickerActions.schemas>,
  q: FacetsQuery,
  enabled: boolean,
): { facets: FacetsResult | null | 'failed'; retry: () => void } {
  const [facets, setFacets] = useState<FacetsResult | null | 'failed'>(null);
  const [attempt, setAttempt] = useState(0);
  const { applied, kind, orientation, workspaceId, agentMode, touched } = q;
  const { callAction, connected } = at;
  useEffect(() => {
    if (!enabled || !connected) return;
    let live = true;
    const mode = !touched && applied ? SearchModeSchema.safeParse(agentMode).data : undefined;
    callAction(ROUTER.assetPanel, 'facets', {
      ...(applied ? { query: applied } : {}),
      ...(mode ? { mode } : {}),
      ...(kind ? { kind } : {}),
      ...(orientation ? { orientation } : {}),
      ...(workspaceId ? { workspace_id: workspaceId } : {}),
    })
      .then((f) => live && setFacets(f))
      .catch(() => live && setFacets('failed'));
    return () => {
      live = false;
    };
  }, [applied, kind, orientation, workspaceId, connected, enabled, attempt, touched, agentMode, callAction]);
  return { facets, retry: () => setAttempt((n) => n + 1) };
}
