import { z } from 'zod';
import {
  AssetPageSchema,
  CapabilitiesArgsSchema,
  CapabilitiesResultSchema,
  ImportArgsSchema,
  ImportResultSchema,
  SearchArgsSchema,
  ViewArgsSchema,
  ViewResultSchema,
} from './schemas/asset.ts';
import { DiscoverArgsSchema, DiscoverResultSchema } from './schemas/discover.ts';
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

/** Router tool names (spec §4; the `svc_` prefix stands in for the maker's name). */
export const ROUTER = {
  assetLibrary: 'svc_asset_library',
  assetSelect: 'svc_asset_select',
  drafts: 'svc_drafts',
  assets: 'svc_assets',
  /** metadata updates and deletion (spec §1 scoping names both) */
  assetManage: 'svc_asset_manage',
  assetImport: 'svc_asset_import',
  assetUpload: 'svc_asset_upload',
  /** panel-only chunked upload channel of the upload panel (MCP Apps visibility ['app']) */
  assetUploadApp: 'svc_asset_upload_app',
  discover: 'svc_discover',
  catalog: 'svc_catalog',
  /** app-only panel actions (thumbnails, facets, picker submit): MCP Apps `visibility: ['app']` */
  assetPanel: 'svc_asset_panel',
} as const;
export type RouterName = (typeof ROUTER)[keyof typeof ROUTER];

/**
 * `ui://` resources of the MCP Apps panels; `<name>.html` is built to `dist/ui/<name>.html` from
 * `ui/<name>/index.html` (scripts/build-ui.mjs) and served by server/mcp/app-resources.ts.
 */
export const PANEL_URI = {
  searchResults: 'ui://atelier/search-results.html',
  assetPicker: 'ui://atelier/asset-picker.html',
  upload: 'ui://atelier/upload.html',
} as const;

/** Who may call an action: the model, an MCP Apps panel, or both (MCP Apps `_meta.ui.visibility`). */
export type Visibility = ('model' | 'app')[];

/**
 * One action of one router: its zod args (validation + JSON Schema), its result schema
 * (`structuredContent`), and the former operation names `svc_discover` resolves to it.
 */
export interface ActionDef<A extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  router: RouterName;
  action: string;
  description: string;
  args: A;
  result: R;
  formerNames: string[];
}

/** Identity helper that keeps the literal types of one action definition. */
export function defineAction<A extends z.ZodType, R extends z.ZodType>(def: ActionDef<A, R>): ActionDef<A, R> {
  return def;
}

/** Router-level metadata: MCP tool annotations and the MCP Apps panel the tool opens. */
export interface RouterDef {
  name: RouterName;
  title: string;
  description: string;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /** `ui://` resource of the panel this tool renders in an MCP Apps host. */
  resourceUri?: string;
  /** MCP Apps `_meta.ui.visibility`; `['app']` marks a panel-only tool (hosts hide it from the model). Default both. */
  visibility?: Visibility;
}

export const ROUTERS: RouterDef[] = [
  {
    name: ROUTER.assetLibrary,
    title: 'Asset library search',
    description:
      'Search the workspace image library first, before generating or importing. Modes: all (hybrid), filename, alt_text, tags, ocr (exact-field), semantic (conceptual), similar (visual, needs similar_to_asset_id). Filters: kind, category, subtype, orientation (landscape for heroes and banners, portrait for mobile heroes and product galleries). Omit query to browse. theme_id is required. In an MCP Apps host a read-only result panel opens; it asks for no selection and you need not wait.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    resourceUri: PANEL_URI.searchResults,
  },
  {
    name: ROUTER.assets,
    title: 'Assets: capabilities and view',
    description: 'capabilities: the provider/model pairs asset_generate accepts (use these values, do not guess). view: look at an asset (JPEG preview) with its URL and size.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: ROUTER.assetImport,
    title: 'Import an asset',
    description:
      'Persist an external image (url, base64 data + mime_type, or conversation attachments) into the library; returns its permanent URL. HEIC/HEIF become PNG. Identical bytes already in the workspace return the existing asset (deduplicated: true). Import has no idempotency key: after a timeout, search for the filename before retrying.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
  {
    name: ROUTER.assetManage,
    title: 'Manage assets: update metadata, delete',
    description:
      'update: correct an asset\'s file name, alt text (accessibility/SEO), tags, purpose, category or subtype; what you set is user metadata that enrichment never overwrites (alt_text null hands it back to machine alt text). ' +
      'delete: permanently remove 1–50 assets of the workspace (originals, renditions, search and vector entries); their CDN URLs stop working unless identical bytes belong to another asset. Deletion cannot be undone: only delete what the user asked to remove, e.g. rejected generated drafts.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: ROUTER.discover,
    title: 'Discover actions',
    description: 'Authoritative JSON Schemas of every router/action; former operation names (e.g. search_assets, list_products, get_product) resolve to the router and action to call.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  // ── catalog ──
  {
    name: ROUTER.catalog,
    title: 'Product catalog',
    description:
      'Store-scoped product catalog synced from the commerce platform (Shopify). list_products: product references (product_id GID + handle) by query (search_mode lexical | semantic | hybrid, default hybrid), related_to_product_id, collection or browse. get_product: 1–20 products by GID with title, description, status, vendor, type, tags, images, variants (decimal-string prices) and selling plan groups. Take every product fact from get_product; never invent prices or images. store_id is needed when the workspace has several active stores.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  // ── generation ──
  {
    name: ROUTER.drafts,
    title: 'Generate, edit and composite images',
    description:
      'asset_generate: make a background, texture, pattern, hero or product composite when the library has no suitable asset (search svc_asset_library first; product images come from get_product). ' +
      'Call svc_assets capabilities first and use its provider, model, aspect_ratio, image_size and output_format values. ' +
      'Composite flow: 1) generate a background; 2) call again with reference_images [product image URL, background URL] in that order and a prompt describing placement (left/right/center, top/bottom, scale like 40% or small/large). ' +
      'mask_url (transparent or white = edit area) needs reference_images. transparent: true asks for a PNG with alpha; the result says whether the output really has transparent pixels. ' +
      'Quality: low for textures, patterns and decorative elements; medium for card images and section backgrounds; high for hero images and primary product shots. ' +
      'Budget of generated assets per page: product page 1 high + 1-2 medium (2-3 total); landing page 1 high + 2-3 medium (3-4); homepage 1 high + 1 medium (2); collection page 0-1 medium. ' +
      'Each image costs the model\'s credits (local 0, basic models 1, the pro model 2), charged only on success; the result has the permanent url for island media props and the remaining credits.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  // ── panels / select ──
  {
    name: ROUTER.assetSelect,
    title: 'Let the user pick assets',
    description:
      'Let the user choose library assets (same args as svc_asset_library search). select: in an MCP Apps host a picker opens and the call returns at once with status awaiting_user and a picker_id: do NOT assume a choice; wait for the user\'s message (it lists the chosen assets in order with name, id and original URL) or call get_selection with the picker_id. Without panels the client may ask the user with a form (the choice is in the result), or you get ranked candidates to present to the user. Use search instead when you can decide yourself.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    resourceUri: PANEL_URI.assetPicker,
  },
  {
    name: ROUTER.assetPanel,
    title: 'Asset panel actions (panels only)',
    description: 'Called by the Atelier MCP Apps panels, not by the model: thumbnails as data: URLs, category facets, random-access result pages, picker submission.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    visibility: ['app'],
  },
  // ── upload ──
  {
    name: ROUTER.assetUpload,
    title: 'Upload from the user\'s device',
    description:
      'Open the upload panel so the user can send an image or video from their device (spec 4.7). Returns at once: nothing is uploaded yet. Each finished upload arrives in the conversation as a user message with asset_id, name and permanent URL. Without an MCP Apps host no panel opens; the result text lists the alternatives (svc_asset_import with url, data or attachments).',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    resourceUri: PANEL_URI.upload,
  },
  {
    name: ROUTER.assetUploadApp,
    title: 'Upload channel (panel only)',
    description:
      'Chunked upload channel used by the upload panel: begin (declare filename, size_bytes, sha256; resumes an open session of the same file) → chunk (base64, ≤ 512 KiB raw each, any order, resendable) → complete (verify size and sha256, import; or import false to stage an attachment for svc_asset_import) | status | abort.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    visibility: ['app'],
  },
];

export const ACTIONS: ActionDef[] = [
  defineAction({
    router: ROUTER.assetLibrary,
    action: 'search',
    description: 'Search or browse the asset library (spec 4.1). Returns an Asset page with cursor pagination (≤ 50 per page).',
    args: SearchArgsSchema,
    result: AssetPageSchema,
    formerNames: ['search_assets', 'asset_search', 'find_assets', 'search_images', 'browse_assets', 'list_assets'],
  }),
  defineAction({
    router: ROUTER.assets,
    action: 'capabilities',
    description: 'Capability entries of the provider/model pairs enabled for the workspace (spec 4.4).',
    args: CapabilitiesArgsSchema,
    result: CapabilitiesResultSchema,
    formerNames: ['get_capabilities', 'asset_capabilities', 'list_models', 'image_capabilities'],
  }),
  defineAction({
    router: ROUTER.assets,
    action: 'view',
    description: 'Return a JPEG preview (longest edge ≤ 1568 px, ≤ 1 MiB) and a JSON text block {asset_id, url, width, height, name} (spec 4.5).',
    args: ViewArgsSchema,
    result: ViewResultSchema,
    formerNames: ['view_asset', 'get_asset', 'show_asset', 'preview_asset'],
  }),
  defineAction({
    router: ROUTER.assetManage,
    action: 'update',
    description: 'Set user metadata of one asset (filename, alt_text, tags, purpose, category, subtype); returns the asset with user_fields and the fields that changed.',
    args: UpdateAssetArgsSchema,
    result: UpdateAssetResultSchema,
    formerNames: ['update_asset', 'update_asset_metadata', 'edit_asset_metadata', 'set_alt_text', 'tag_asset', 'rename_asset'],
  }),
  defineAction({
    router: ROUTER.assetManage,
    action: 'delete',
    description: 'Permanently delete 1–50 assets of the workspace; returns deleted (in request order), not_found, and still_served URLs whose bytes another asset shares.',
    args: DeleteAssetsArgsSchema,
    result: DeleteAssetsResultSchema,
    formerNames: ['delete_asset', 'delete_assets', 'remove_asset', 'remove_assets'],
  }),
  defineAction({
    router: ROUTER.assetImport,
    action: 'import',
    description: 'Import one image from url or data, or a batch of attachments (spec 4.6).',
    args: ImportArgsSchema,
    result: ImportResultSchema,
    formerNames: ['import_asset', 'import_image', 'asset_import', 'save_image', 'persist_asset'],
  }),
  defineAction({
    router: ROUTER.discover,
    action: 'discover',
    description: 'Find actions by operation name (including former names) and get their JSON Schemas.',
    args: DiscoverArgsSchema,
    result: DiscoverResultSchema,
    formerNames: ['list_operations', 'describe_operations', 'help'],
  }),
  // ── catalog ──
  defineAction({
    router: ROUTER.catalog,
    action: 'list_products',
    description:
      'List product references {product_id, handle} of the selected store (spec 4.8): query with search_mode lexical (FTS5/BM25), semantic (KNN) or hybrid (RRF, default); related_to_product_id (not with query); collection; product_type; status (default ACTIVE only); limit 1–50 (default 20); opaque cursor. degraded_from is set when semantic search was unavailable and lexical results were returned.',
    args: ListProductsArgsSchema,
    result: ListProductsResultSchema,
    formerNames: ['list_products', 'search_products', 'find_products', 'browse_products', 'product_search', 'products_list', 'related_products'],
  }),
  defineAction({
    router: ROUTER.catalog,
    action: 'get_product',
    description:
      'Hydrate 1–20 products by GID in request order (spec 4.9): title, handle, description_html, status, total_inventory, product_type, vendor, tags, images, variants (price and compare_at_price as decimal strings), selling_plan_groups. IDs absent from the selected store are listed in not_found. handle is a deprecated single-product path.',
    args: GetProductArgsSchema,
    result: GetProductResultSchema,
    formerNames: ['get_product', 'get_products', 'product_details', 'fetch_product', 'get_product_by_handle', 'hydrate_products'],
  }),
  // ── generation ──
  defineAction({
    router: ROUTER.drafts,
    action: 'asset_generate',
    description:
      'Generate, edit (mask_url) or composite (reference_images, product first and background last) one image with a provider/model from svc_assets capabilities (spec 4.3); it lands in the library and returns a Generated asset {asset_id, url, kind, width, height, provider, model, credit_cost, credits_charged, remaining_credits, has_alpha, notes}.',
    args: GenerateArgsSchema,
    result: GeneratedAssetSchema,
    formerNames: ['generate_asset', 'generate_image', 'create_image', 'edit_image', 'composite_image', 'asset_edit', 'generate_background'],
  }),
  // ── panels / select ──
  defineAction({
    router: ROUTER.assetSelect,
    action: 'select',
    description: 'Open the asset picker (spec 4.2); returns at once with a picker_id (status awaiting_user) in an MCP Apps host, the user\'s choice when the client supports form elicitation, else ranked candidates.',
    args: SelectArgsSchema,
    result: SelectResultSchema,
    formerNames: ['select_assets', 'asset_select', 'pick_assets', 'choose_assets', 'asset_picker'],
  }),
  defineAction({
    router: ROUTER.assetSelect,
    action: 'get_selection',
    description: 'State of a picker by picker_id: awaiting_user, or confirmed with the chosen assets in selection order (name, id, original URL).',
    args: GetSelectionArgsSchema,
    result: SelectionStateSchema,
    formerNames: ['get_selected_assets', 'picker_result', 'selection_status'],
  }),
  defineAction({
    router: ROUTER.assetPanel,
    action: 'thumbnails',
    description: 'Panel only: previews of up to 50 assets as data: URLs (JPEG, longest edge ≤ 320 px).',
    args: ThumbnailsArgsSchema,
    result: ThumbnailsResultSchema,
    formerNames: [],
  }),
  defineAction({
    router: ROUTER.assetPanel,
    action: 'facets',
    description: 'Panel only: category and subtype counts for the picker\'s category browser.',
    args: FacetsArgsSchema,
    result: FacetsResultSchema,
    formerNames: [],
  }),
  defineAction({
    router: ROUTER.assetPanel,
    action: 'page',
    description: 'Panel only: the page of a search result list starting at offset (random access for the picker\'s virtualized grid); cursor is any cursor of the same query.',
    args: PageArgsSchema,
    result: AssetPageSchema,
    formerNames: [],
  }),
  defineAction({
    router: ROUTER.assetPanel,
    action: 'submit_selection',
    description: 'Panel only: confirm a picker\'s selection (ids in selection order, validated against the workspace). Idempotent: resubmitting the same ids returns the same state.',
    args: SubmitSelectionArgsSchema,
    result: SubmitSelectionResultSchema,
    formerNames: [],
  }),
  // ── upload ──
  defineAction({
    router: ROUTER.assetUpload,
    action: 'upload',
    description: 'Open the upload panel (spec 4.7); returns at once with status awaiting_user, the resolved workspace and the upload limits.',
    args: UploadArgsSchema,
    result: UploadPanelResultSchema,
    formerNames: ['upload_asset', 'upload_image', 'upload_file', 'asset_upload', 'open_upload_panel'],
  }),
  defineAction({
    router: ROUTER.assetUploadApp,
    action: 'begin',
    description: 'Declare one file (filename, size_bytes, sha256 hex, mime_type, alt_text, tags, purpose); returns the session with chunk_size_bytes, chunk_count and received_chunks (resume: an open session of the same file is returned with resumed true).',
    args: UploadBeginArgsSchema,
    result: UploadSessionSchema,
    formerNames: ['create_upload', 'start_upload', 'create_upload_ticket'],
  }),
  defineAction({
    router: ROUTER.assetUploadApp,
    action: 'chunk',
    description: 'Store chunk `index` (base64 of exactly chunk_size_bytes raw bytes; the last chunk holds the remainder). Chunks may arrive in any order and be resent.',
    args: UploadChunkArgsSchema,
    result: UploadSessionSchema,
    formerNames: ['upload_chunk', 'put_chunk'],
  }),
  defineAction({
    router: ROUTER.assetUploadApp,
    action: 'status',
    description: 'State of an upload: status, received_chunks (indexes) and received_bytes, to resume after an interruption.',
    args: UploadRefArgsSchema,
    result: UploadSessionSchema,
    formerNames: ['upload_status'],
  }),
  defineAction({
    router: ROUTER.assetUploadApp,
    action: 'complete',
    description: 'Assemble the chunks, verify size and sha256 (a mismatch discards the upload), and import through the same path as svc_asset_import (dedupe, HEIC → PNG, user metadata; video allowed). import false keeps the verified file staged as an attachment.',
    args: UploadCompleteArgsSchema,
    result: UploadCompleteResultSchema,
    formerNames: ['finalize_upload', 'finish_upload'],
  }),
  defineAction({
    router: ROUTER.assetUploadApp,
    action: 'list',
    description: 'Panel only: the uploads an upload panel instance imported (by the panel_id of the upload result), with their assets, so a remounted panel shows what it already sent.',
    args: UploadListArgsSchema,
    result: UploadListResultSchema,
    formerNames: [],
  }),
  defineAction({
    router: ROUTER.assetUploadApp,
    action: 'abort',
    description: 'Discard an upload that is receiving or staged, with all its bytes.',
    args: UploadRefArgsSchema,
    result: UploadSessionSchema,
    formerNames: ['cancel_upload'],
  }),
];

/** Look up one action definition. */
export function findAction(router: string, action: string): ActionDef | undefined {
  return ACTIONS.find((a) => a.router === router && a.action === action);
}

/** Actions of one router, in registry order. */
export function actionsOf(router: string): ActionDef[] {
  return ACTIONS.filter((a) => a.router === router);
}
