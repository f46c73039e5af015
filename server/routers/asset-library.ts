import { ISLAND_MEDIA_PROPS, ROUTER } from '../../shared/actions.ts';
import type { LibraryDeps } from '../assets/deps.ts';
import { searchAssets, type AssetVectorSearch } from '../assets/search.ts';
import { scopeFor, themeFor } from '../tenancy/scope.ts';
import { defineRouter, type RouterImpl } from './types.ts';
import { describeAssetPage } from './text.ts';

/** `svc_asset_library`: search and browse (spec §4.1). */
export function assetLibraryRouter(deps: LibraryDeps, vectors: () => AssetVectorSearch | null): RouterImpl<typeof ROUTER.assetLibrary> {
  return defineRouter(ROUTER.assetLibrary, {
    search: async (args, ctx) => {
      const scope = await scopeFor(deps.tenancy, ctx.principal, args.workspace_id);
      const theme = await themeFor(deps.tenancy, scope, args);
      const page = await searchAssets(deps, scope, args, { themeId: theme.id }, vectors());
      return {
        structuredContent: page,
        text: `${describeAssetPage(page, { propsHint: `Put a url in ${ISLAND_MEDIA_PROPS}.` })}\nRead-only result: no selection is requested; you need not wait for the user.`,
      };
    },
  });
}
