/**
 * Router tool and panel resource names, apart from the action registry (`shared/actions.ts`, which
 * re-exports them): panels import these names without bundling every action's zod schema.
 */

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
