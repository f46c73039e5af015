import { z } from 'zod';
import {
  AssetPageSchema,
  CapabilitiesArgsSchema,
  CapabilitiesResultSchema,
  SearchArgsSchema,
  ViewArgsSchema,
  ViewResultSchema,
} from './schemas/asset.ts';
import { ImportArgsSchema, ImportResultSchema } from './schemas/import.ts';
import { DiscoverArgsSchema, DiscoverResultSchema } from './schemas/discover.ts';
import { ScopeArgsSchema, ScopeResultSchema } from './schemas/scope.ts';
import { DeleteAssetsArgsSchema, DeleteAssetsResultSchema, UpdateAssetArgsSchema, UpdateAssetResultSchema } from './schemas/manage.ts';
import { GenerateArgsSchema, GeneratedAssetSchema } from './schemas/generate.ts';
import { GetProductArgsSchema, GetProductResultSchema, ListProductsArgsSchema, ListProductsResultSchema } from './schemas/product.ts';
import {
  UploadArgsSchema,
  UploadBeginArgsSchema,
  UploadChunkArgsSchema,
  UploadCompleteArgsSchema,
  UploadCompleteResultSchema,
  UploadListArgsSchema,
  UploadListResultSchema,
  UploadPanelResultSchema,
  UploadRefArgsSchema,
  UploadSessionSchema,
} from './schemas/upload.ts';
import {
  FacetsArgsSchema,
  FacetsResultSchema,
  GetSelectionArgsSchema,
  PageArgsSchema,
  SelectArgsSchema,
  SelectionStateSchema,
  SelectResultSchema,
  SubmitSelectionArgsSchema,
  SubmitSelectionResultSchema,
  ThumbnailsArgsSchema,
  ThumbnailsResultSchema,
} from './schemas/panel.ts';
import type { ActionSpec, RouterSpec, ToolAnnotationsSpec } from './action-spec.ts';
import { PANEL_URI, ROUTER, type RouterName } from './routers.ts';

/** Router and panel names live in routers.ts (small, for the panels); re-exported here for the server. */
export { PANEL_URI, ROUTER, type RouterName };
export type { ActionSpec, RouterSpec, ToolAnnotationsSpec, Visibility } from './action-spec.ts';

/** Where a returned URL goes in a storefront (spec §1): named in every description that hands out asset URLs. */
export const ISLAND_MEDIA_PROPS =
  "island media props (HeroMedia, MediaCarousel, ProductGallery, ProductHero, or another island's media, images or src prop)";
/** Short form for tool descriptions after the first that names the props in full. */
const FOR_PROPS = 'island media props';

const READ_ONLY: ToolAnnotationsSpec = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * THE action registry, as `const` data keyed router → action. Everything else derives from it: the
 * router tools and their input schemas in tools/list, argument validation, result validation,
 * `svc_discover`, the server's handler types (`server/routers/types.ts`: a missing handler, a misspelt
 * action or a wrong result shape fails `tsc`) and the panels' `actionClient` types (ui/lib/call-action.ts).
 */
export const REGISTRY = {
  [ROUTER.assetLibrary]: {
    title: 'Asset search',
    description:
      `Search the workspace's images before generating or importing. Needs theme_id (see svc_discover scope). Returns each asset's name, id, size, alt text and permanent URL for ${ISLAND_MEDIA_PROPS}. ` +
      'Says so when nothing matches: then generate or import (unless it says assets are still being analysed: then retry shortly).',
    panelNote: 'A read-only results panel opens; do not wait for it.',
    annotations: READ_ONLY,
    resourceUri: PANEL_URI.searchResults,
    actions: {
      search: {
        description: 'Find assets by words or meaning, or browse; pages of up to 50 with next_cursor.',
        args: SearchArgsSchema,
        result: AssetPageSchema,
        formerNames: ['search_assets', 'asset_search', 'find_assets', 'search_images', 'browse_assets', 'list_assets'],
      },
    },
  },
  [ROUTER.assetSelect]: {
    title: 'Asset picker',
    description:
      'Let the user choose assets (args as in search); use search when you can decide. ' +
      `The user answers a form, or you get candidates to show them. Chosen assets come with name, id and URL for ${FOR_PROPS}.`,
    panelNote:
      "Here a picker panel opens instead and the call returns at once, nothing chosen yet: wait for the user's message or call get_selection.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    resourceUri: PANEL_URI.assetPicker,
    actions: {
      select: {
        description: "Open the picker (or ask with a form); returns picker_id and, once made, the choice in the user's order.",
        args: SelectArgsSchema,
        result: SelectResultSchema,
        formerNames: ['select_assets', 'asset_select', 'pick_assets', 'choose_assets', 'asset_picker'],
      },
      get_selection: {
        description: "Read a picker's state by picker_id: still waiting, or the chosen assets in order.",
        args: GetSelectionArgsSchema,
        result: SelectionStateSchema,
        formerNames: ['get_selected_assets', 'picker_result', 'selection_status'],
      },
    },
  },
  [ROUTER.drafts]: {
    title: 'Image generation',
    description:
      'Make an image when the library has nothing suitable; product photos come from get_product. Use values from svc_assets capabilities. ' +
      'Composite: generate a background, then call with reference_images [product URL, background URL] and say in the prompt where the product goes. ' +
      'Quality: low for textures, patterns and decorative elements; medium for cards and sections; high for heroes and main product shots. ' +
      'Per page: product page 1 high + 1-2 medium; landing page 1 high + 2-3 medium; homepage 1 high + 1 medium; collection page 0-1 medium. ' +
      `Credits are charged on success only. Returns a permanent URL for ${FOR_PROPS} (see svc_asset_library).`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    actions: {
      asset_generate: {
        description: 'Generate one image, or edit/composite the reference_images; it is saved to the library.',
        args: GenerateArgsSchema,
        result: GeneratedAssetSchema,
        taskSupport: 'optional',
        formerNames: [
          'generate_asset',
          'generate_image',
          'create_image',
          'edit_image',
          'composite_image',
          'asset_edit',
          'generate_background',
        ],
      },
    },
  },
  [ROUTER.assets]: {
    title: 'Capabilities and view',
    description:
      'capabilities: the providers, models, ratios, sizes and formats generation accepts; use these, do not guess. view: see an asset as a JPEG.',
    annotations: READ_ONLY,
    actions: {
      capabilities: {
        description: 'Provider/model pairs with their operations, ratios, sizes, formats, reference limit and credits.',
        args: CapabilitiesArgsSchema,
        result: CapabilitiesResultSchema,
        formerNames: ['get_capabilities', 'asset_capabilities', 'list_models', 'image_capabilities'],
      },
      view: {
        description: 'A JPEG preview (up to 1568 px) plus asset_id, url, size and alt text.',
        args: ViewArgsSchema,
        result: ViewResultSchema,
        formerNames: ['view_asset', 'get_asset', 'show_asset', 'preview_asset'],
      },
    },
  },
  [ROUTER.assetManage]: {
    title: 'Asset updates',
    description:
      "update: set an asset's file name, alt text, tags, purpose, category or subtype (kept over automatic values). " +
      'delete: remove 1-50 assets and their URLs for good, only when the user asked, e.g. rejected drafts.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    actions: {
      update: {
        description: "Set an asset's file name, alt text, tags, purpose, category or subtype; returns the asset and what changed.",
        args: UpdateAssetArgsSchema,
        result: UpdateAssetResultSchema,
        formerNames: ['update_asset', 'update_asset_metadata', 'edit_asset_metadata', 'set_alt_text', 'tag_asset', 'rename_asset'],
      },
      delete: {
        description: 'Delete 1-50 assets; returns deleted, not_found and URLs still served because another asset has the same bytes.',
        args: DeleteAssetsArgsSchema,
        result: DeleteAssetsResultSchema,
        formerNames: ['delete_asset', 'delete_assets', 'remove_asset', 'remove_assets'],
      },
    },
  },
  [ROUTER.assetImport]: {
    title: 'Import an image',
    description:
      'Save an outside image into the library from url, base64 data (with mime_type) or attachments; identical bytes return the existing asset. ' +
      `Returns a permanent URL for ${FOR_PROPS}; use it instead of the source. After a timeout, search for the file name before retrying.`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    actions: {
      import: {
        description: 'Import one image from url or data, or a batch of attachments.',
        args: ImportArgsSchema,
        result: ImportResultSchema,
        formerNames: ['import_asset', 'import_image', 'asset_import', 'save_image', 'persist_asset'],
      },
    },
  },
  [ROUTER.assetUpload]: {
    title: 'Upload panel',
    description:
      "Open the upload panel for files on the user's device; returns at once. " +
      `Each upload arrives later as a user message with asset_id, name and a permanent URL for ${FOR_PROPS}. Without a panel host the text says what to do.`,
    panelNote: 'Do not wait: the user uploads in their own time.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    resourceUri: PANEL_URI.upload,
    actions: {
      upload: {
        description: 'Open the upload panel; returns panel_id, the workspace and the upload limits.',
        args: UploadArgsSchema,
        result: UploadPanelResultSchema,
        formerNames: ['upload_asset', 'upload_image', 'upload_file', 'asset_upload', 'open_upload_panel'],
      },
    },
  },
  [ROUTER.catalog]: {
    title: 'Product catalog',
    description:
      'list_products: product ids and handles by words, meaning, related product or collection. ' +
      'get_product: up to 20 full products (title, description, images, variants, prices). Take every product fact from get_product; never invent.',
    annotations: READ_ONLY,
    actions: {
      list_products: {
        description: 'Find products (query, related_to_product_id or collection; browse without them); pages of up to 50.',
        args: ListProductsArgsSchema,
        result: ListProductsResultSchema,
        formerNames: [
          'list_products',
          'search_products',
          'find_products',
          'browse_products',
          'product_search',
          'products_list',
          'related_products',
        ],
      },
      get_product: {
        description: 'Full products for 1-20 product_ids in request order; unknown ids are listed in not_found.',
        args: GetProductArgsSchema,
        result: GetProductResultSchema,
        formerNames: ['get_product', 'get_products', 'product_details', 'fetch_product', 'get_product_by_handle', 'hydrate_products'],
      },
    },
  },
  [ROUTER.discover]: {
    title: 'Scope and actions',
    description:
      'scope: the workspaces, themes and stores your key reaches and the default ids; call it when an id is missing. ' +
      'discover: an action by name or old name (search_assets…) with its full schema.',
    annotations: READ_ONLY,
    actions: {
      scope: {
        description: 'What this API key reaches: workspaces, their themes and stores, and the default ids.',
        args: ScopeArgsSchema,
        result: ScopeResultSchema,
        formerNames: ['get_scope', 'whoami', 'list_workspaces', 'list_themes', 'list_stores', 'list_brand_kits', 'get_context'],
      },
      discover: {
        description: 'Actions by name, old name or words; full argument and result schemas for one action, or on request.',
        args: DiscoverArgsSchema,
        result: DiscoverResultSchema,
        formerNames: ['list_operations', 'describe_operations', 'help'],
      },
    },
  },
  [ROUTER.assetPanel]: {
    title: 'Panel data',
    description: 'For the Atelier panels only: previews, category counts, pages at an offset, picker confirmation.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    visibility: ['app'],
    actions: {
      thumbnails: {
        description: 'Previews of up to 50 assets as data: URLs (JPEG, up to 320 px).',
        args: ThumbnailsArgsSchema,
        result: ThumbnailsResultSchema,
        formerNames: [],
      },
      facets: {
        description: "Category and subtype counts for the picker's category browser.",
        args: FacetsArgsSchema,
        result: FacetsResultSchema,
        formerNames: [],
      },
      page: {
        description: 'The result page starting at offset, pinned to the snapshot of a cursor of the same query.',
        args: PageArgsSchema,
        result: AssetPageSchema,
        formerNames: [],
      },
      submit_selection: {
        description: "Confirm a picker's selection (ids in order); repeating the same ids is harmless.",
        args: SubmitSelectionArgsSchema,
        result: SubmitSelectionResultSchema,
        formerNames: [],
      },
    },
  },
  [ROUTER.assetUploadApp]: {
    title: 'Panel uploads',
    description:
      'For the upload panel only: begin → chunk (base64, any order) → complete (verify, import or stage) | status | list | abort.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    visibility: ['app'],
    actions: {
      begin: {
        description: 'Declare one file (filename, size_bytes, sha256); resumes an open upload of the same file.',
        args: UploadBeginArgsSchema,
        result: UploadSessionSchema,
        formerNames: ['create_upload', 'start_upload', 'create_upload_ticket'],
      },
      chunk: {
        description: 'Store chunk index (base64 of chunk_size_bytes raw bytes; the last holds the rest).',
        args: UploadChunkArgsSchema,
        result: UploadSessionSchema,
        formerNames: ['upload_chunk', 'put_chunk'],
      },
      status: {
        description: 'State of an upload and the chunks received, to resume after an interruption.',
        args: UploadRefArgsSchema,
        result: UploadSessionSchema,
        formerNames: ['upload_status'],
      },
      complete: {
        description: 'Verify size and sha256 and import (import false keeps the file staged as an attachment).',
        args: UploadCompleteArgsSchema,
        result: UploadCompleteResultSchema,
        formerNames: ['finalize_upload', 'finish_upload'],
      },
      list: {
        description: 'The uploads one panel instance imported (by panel_id), so a remounted panel shows them again.',
        args: UploadListArgsSchema,
        result: UploadListResultSchema,
        formerNames: [],
      },
      abort: {
        description: 'Discard an upload that is receiving or staged, with its bytes.',
        args: UploadRefArgsSchema,
        result: UploadSessionSchema,
        formerNames: ['cancel_upload'],
      },
    },
  },
} as const satisfies Record<RouterName, RouterSpec>;

/** The registry's static type. */
export type Registry = typeof REGISTRY;
/** Action names of one router, e.g. `ActionName<'svc_assets'>` = `'capabilities' | 'view'`. */
export type ActionName<R extends RouterName> = keyof Registry[R]['actions'] & string;
type SpecOf<R extends RouterName, A extends ActionName<R>> = Registry[R]['actions'][A] extends infer S extends ActionSpec ? S : never;
/** Parsed args of an action (zod output: defaults applied), as a handler receives them. */
export type ArgsOf<R extends RouterName, A extends ActionName<R>> = z.output<SpecOf<R, A>['args']>;
/** Args of an action as a caller sends them (zod input: defaulted fields optional). */
export type ArgsIn<R extends RouterName, A extends ActionName<R>> = z.input<SpecOf<R, A>['args']>;
/** `structuredContent` of an action. */
export type ResultOf<R extends RouterName, A extends ActionName<R>> = z.output<SpecOf<R, A>['result']>;

/** One action of one router in flat form (for listings such as `svc_discover`). */
export interface ActionDef {
  router: RouterName;
  action: string;
  description: string;
  args: z.ZodType;
  result: z.ZodType;
  formerNames: readonly string[];
  /** runs as an MCP task for clients that declared the Tasks extension (see `ActionSpec.taskSupport`) */
  taskSupport?: 'optional';
}

/** Router-level metadata in flat form. */
export interface RouterDef extends Omit<RouterSpec, 'actions'> {
  name: RouterName;
}

const ROUTER_NAMES = Object.keys(REGISTRY) as RouterName[];

/** Every router tool, in registry order. */
export const ROUTERS: readonly RouterDef[] = ROUTER_NAMES.map((name) => {
  const { actions: _actions, ...meta } = REGISTRY[name] as RouterSpec;
  return { name, ...meta };
});

/** Every action, in registry order. */
export const ACTIONS: readonly ActionDef[] = ROUTER_NAMES.flatMap((router) =>
  Object.entries((REGISTRY[router] as RouterSpec).actions).map(([action, spec]) => ({ router, action, ...spec })),
);

/** Whether `name` is a router tool of the registry. */
export function isRouterName(name: string): name is RouterName {
  return Object.hasOwn(REGISTRY, name);
}

/** Look up one action definition (runtime lookup for names that arrive as strings). */
export function findAction(router: string, action: string): ActionDef | undefined {
  return ACTIONS.find((a) => a.router === router && a.action === action);
}

/** Actions of one router, in registry order. */
export function actionsOf(router: string): ActionDef[] {
  return ACTIONS.filter((a) => a.router === router);
}
