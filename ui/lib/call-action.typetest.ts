/**
 * Type-level tests of the panels' typed action calls (issue 14): every line under a `@ts-expect-error`
 * MUST fail to compile; `tsc -p tsconfig.ui.json` (npm run typecheck, and the panel build of npm test)
 * reports an unused directive the day one compiles. Never executed or bundled.
 */
import type { App } from '@modelcontextprotocol/ext-apps';
import { ROUTER } from '../../shared/actions.ts';
import { callAction } from './call-action.ts';

declare const app: App;

export async function checks(): Promise<void> {
  // the result type comes from the action's result schema
  const r = await callAction(app, ROUTER.assetPanel, 'thumbnails', { asset_ids: ['00000000-0000-4000-8000-000000000000'] });
  const first: string | null | undefined = r.thumbnails[0]?.data_url;
  void first;
  // @ts-expect-error a wrong result shape: thumbnails has no `assets`
  void r.assets;
  // @ts-expect-error a misspelt action
  await callAction(app, ROUTER.assetPanel, 'thumbnail', { asset_ids: [] });
  // @ts-expect-error an action of another router
  await callAction(app, ROUTER.assetPanel, 'search', {});
  // @ts-expect-error a wrong argument type: asset_ids is an array of ids
  await callAction(app, ROUTER.assetPanel, 'thumbnails', { asset_ids: 'one' });
  // @ts-expect-error a missing required argument: submit_selection needs picker_id
  await callAction(app, ROUTER.assetPanel, 'submit_selection', { asset_ids: [] });
}
