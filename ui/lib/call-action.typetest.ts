/**
 * Type-level tests of the panels' typed action clients (issues 13, 14): every line under a
 * `@ts-expect-error` MUST fail to compile; `tsc -p tsconfig.ui.json` (npm run typecheck, and the panel
 * build of npm test) reports an unused directive the day one compiles. Never executed or bundled.
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { ROUTER } from '../../shared/routers.ts';
import { AssetPageSchema } from '../../shared/schemas/asset.ts';
import { SubmitSelectionResultSchema, ThumbnailsResultSchema } from '../../shared/schemas/panel.ts';
import { actionClient } from './call-action.ts';

declare const app: App;

const client = actionClient({
  [ROUTER.assetLibrary]: { search: AssetPageSchema },
  [ROUTER.assetPanel]: { thumbnails: ThumbnailsResultSchema, submit_selection: SubmitSelectionResultSchema },
});

export async function checks(): Promise<void> {
  // the result type comes from the action's result schema
  const r = await client.call(app, ROUTER.assetPanel, 'thumbnails', { asset_ids: ['00000000-0000-4000-8000-000000000000'] });
  const first: string | null | undefined = r.thumbnails[0]?.data_url;
  void first;
  const parsed = client.parse(ROUTER.assetLibrary, 'search', undefined);
  void parsed?.suggestions;
  // @ts-expect-error a wrong result shape: thumbnails has no `assets`
  void r.assets;
  // @ts-expect-error a misspelt action
  await client.call(app, ROUTER.assetPanel, 'thumbnail', { asset_ids: [] });
  // @ts-expect-error an action of another router
  await client.call(app, ROUTER.assetPanel, 'search', {});
  // @ts-expect-error a wrong argument type: asset_ids is an array of ids
  await client.call(app, ROUTER.assetPanel, 'thumbnails', { asset_ids: 'one' });
  // @ts-expect-error a missing required argument: submit_selection needs picker_id
  await client.call(app, ROUTER.assetPanel, 'submit_selection', { asset_ids: [] });
  // @ts-expect-error an action this panel did not declare (facets is in the registry, not in the client)
  await client.call(app, ROUTER.assetPanel, 'facets', {});
  // @ts-expect-error a router this panel did not declare
  await client.call(app, ROUTER.assetSelect, 'get_selection', { picker_id: '00000000-0000-4000-8000-000000000000' });
}

// @ts-expect-error a schema that is not the action's result schema (the search page schema for thumbnails)
actionClient({ [ROUTER.assetPanel]: { thumbnails: AssetPageSchema } });
