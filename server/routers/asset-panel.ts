import { ROUTER } from '../../shared/actions.ts';
import type { AssetFacetStore } from '../db/ports/asset-facet-store.ts';
import { facetsFor, thumbnailsFor } from '../assets/panel-data.ts';
import { searchAssets, type AssetVectorSearch } from '../assets/search.ts';
import { submitSelection, type PickerDeps } from '../assets/select.ts';
import { scopeFor, themeFor } from '../tenancy/scope.ts';
import { describeSelection } from './asset-select.ts';
import { defineRouter, type RouterImpl } from './types.ts';

/**
 * `svc_asset_panel`: actions only the MCP Apps panels call (`_meta.ui.visibility: ["app"]`; the host
 * hides the tool from the model, the server still lists it). Each re-derives scope from the caller's
 * API key exactly like model-facing actions: a panel can never widen what its key reaches.
 */
export function assetPanelRouter(
  deps: PickerDeps & { facets: AssetFacetStore },
  vectors: () => AssetVectorSearch | null,
): RouterImpl<typeof ROUTER.assetPanel> {
  return defineRouter(ROUTER.assetPanel, {
    thumbnails: async (args, ctx) => {
      const scope = await scopeFor(deps.library.tenancy, ctx.principal, args.workspace_id);
      const r = await thumbnailsFor(deps.library, scope, args.asset_ids, args.size_px);
      const bytes = r.thumbnails.reduce((n, t) => n + t.bytes, 0);
      ctx.log.debug({ count: r.thumbnails.length, bytes }, 'thumbnails');
      return {
        structuredContent: r,
        text: `${r.thumbnails.length} preview(s) as data: URLs (${bytes} bytes)${r.not_found.length ? `; not found: ${r.not_found.join(', ')}` : ''}.`,
      };
    },
    facets: async (args, ctx) => {
      const scope = await scopeFor(deps.library.tenancy, ctx.principal, args.workspace_id);
      const r = await facetsFor(
        deps.library,
        deps.facets,
        scope,
        { query: args.query, mode: args.mode, kind: args.kind, orientation: args.orientation },
        vectors(),
      );
      return {
        structuredContent: r,
        text: `${r.total} asset(s): ${r.categories.map((c) => `${c.category} ${c.count}`).join(', ') || 'no categories'}${r.uncategorized ? `, uncategorized ${r.uncategorized}` : ''}.`,
      };
    },
    page: async (args, ctx) => {
      const scope = await scopeFor(deps.library.tenancy, ctx.principal, args.workspace_id);
      const theme = await themeFor(deps.library.tenancy, scope, args);
      const page = await searchAssets(deps.library, scope, args, { themeId: theme.id }, vectors(), { offset: args.offset });
      return { structuredContent: page, text: `${page.assets.length} of ${page.total} asset(s) from offset ${args.offset}.` };
    },
    submit_selection: async (args, ctx) => {
      const scope = await scopeFor(deps.library.tenancy, ctx.principal, args.workspace_id);
      const state = await submitSelection(deps, scope, args.picker_id, args.asset_ids);
      return { structuredContent: state, text: describeSelection(state) };
    },
  });
}
