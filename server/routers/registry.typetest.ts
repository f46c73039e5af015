/**
 * Type-level tests of the action registry (issue 14): every line under a `@ts-expect-error` MUST fail to
 * compile. `tsc --noEmit -p tsconfig.json` (npm run typecheck, and the typecheck step of npm test) reports
 * "Unused '@ts-expect-error' directive" the day such a line compiles, so the registry's static guarantees
 * are checked on every run. Never executed (not a *.test.ts file). Panel calls: ui/lib/call-action.typetest.ts.
 */
import { ROUTER } from '../../shared/actions.ts';
import { defineRouter, type ActionOutput, type RouterImpls } from './types.ts';

const text = 'summary';
const capabilities = async (): Promise<ActionOutput<{ capabilities: [] }>> => ({ structuredContent: { capabilities: [] }, text });
const view = async (args: { asset_id: string }) => ({
  structuredContent: {
    asset_id: args.asset_id,
    url: 'u',
    width: 1,
    height: 1,
    name: 'n',
    preview_width: 1,
    preview_height: 1,
    preview_bytes: 1,
    alt_text: null,
    tags: [],
    ocr_text: null,
    enrichment_status: 'done' as const,
  },
  text,
});

// A complete router with handlers typed from the registry compiles.
export const complete = defineRouter(ROUTER.assets, { capabilities, view });

// @ts-expect-error a missing handler: `view` is an action of svc_assets
export const missing = defineRouter(ROUTER.assets, { capabilities });

export const misspelt = defineRouter(ROUTER.assets, {
  capabilities,
  view,
  // @ts-expect-error a misspelt action: svc_assets has no `veiw`
  veiw: view,
});

export const wrongResult = defineRouter(ROUTER.assets, {
  // @ts-expect-error a wrong result shape: capabilities returns `{capabilities: CapabilityEntry[]}`
  capabilities: async () => ({ structuredContent: { providers: [] }, text }),
  view,
});

export const anotherActionsSchema = defineRouter(ROUTER.assets, {
  capabilities,
  // @ts-expect-error another action's result: view must return the view result, not capabilities
  view: capabilities,
});

export const typedArgs = defineRouter(ROUTER.catalog, {
  list_products: async (args) => {
    // @ts-expect-error args are the parsed zod output of list_products: there is no `search`
    void args.search;
    // defaults are applied before a handler runs: `limit` and `status` are not optional
    const limit: number = args.limit;
    const status: string[] = args.status;
    void limit;
    void status;
    throw new Error('not called');
  },
  get_product: async () => {
    throw new Error('not called');
  },
});

// @ts-expect-error a router left out of the composition root: RouterImpls is keyed by every router name
export const routers: RouterImpls = { [ROUTER.assets]: complete };
