/**
 * MCP Apps (SEP-1865, ext-apps 2.0: the wire format of 1.7.5): the one module for its constants and `_meta`, built with
 * ext-apps' own server helpers and constants. Routers never see this module; the dispatcher tells them
 * whether the client renders panels (`ActionContext.clientRendersPanels`).
 *
 * `registerAppResource` registers the panel HTML (it adds `RESOURCE_MIME_TYPE`). `registerAppTool` is not
 * used: it only normalises `_meta` and calls `McpServer.registerTool`, whose tools/list cannot be filtered
 * per client (panel-only tools must stay out of a plain client's list), whose input schema is generated
 * from zod in full (ours is the compact per-action union of mcp/tool-schema.ts) and whose input
 * validation answers in plain text instead of our structured error. Our own tools/list writes the same
 * `_meta` the helper would: `ui.resourceUri` plus the flat `RESOURCE_URI_META_KEY`, and `ui.visibility`.
 */
import type { McpUiResourceMeta, McpUiToolMeta } from '@modelcontextprotocol/ext-apps';
import {
  EXTENSION_ID,
  getUiCapability,
  registerAppResource,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from '@modelcontextprotocol/ext-apps/server';
import type { ClientCapabilities, McpServer } from '@modelcontextprotocol/server';
import type { RouterDef } from '../../shared/actions.ts';

export { EXTENSION_ID, RESOURCE_MIME_TYPE };
export type { McpUiResourceMeta };

/** Server capabilities entry that tells hosts we serve MCP Apps panels (hosts may skip rendering without it). */
export const APPS_SERVER_CAPABILITY = { extensions: { [EXTENSION_ID]: {} } } as const;

/**
 * Whether the client declared MCP Apps at initialize (`capabilities.extensions["io.modelcontextprotocol/ui"]`,
 * read with ext-apps' `getUiCapability`) and accepts our View MIME type (or lists none).
 */
export function clientRendersPanels(capabilities: ClientCapabilities | undefined): boolean {
  const ui = getUiCapability(capabilities);
  return ui !== undefined && (ui.mimeTypes === undefined || ui.mimeTypes.includes(RESOURCE_MIME_TYPE));
}

/** Whether a router is panel-only (`_meta.ui.visibility: ["app"]`): listed only to clients that render panels. */
export function isPanelOnly(def: Pick<RouterDef, 'visibility'>): boolean {
  return def.visibility !== undefined && !def.visibility.includes('model');
}

/** The tool `_meta` of a router: `ui.resourceUri` (+ the flat key older hosts read) and `ui.visibility`; undefined when neither applies. */
export function toolUiMeta(def: Pick<RouterDef, 'resourceUri' | 'visibility'>): Record<string, unknown> | undefined {
  if (!def.resourceUri && !def.visibility) return undefined;
  const ui: McpUiToolMeta = {
    ...(def.resourceUri ? { resourceUri: def.resourceUri } : {}),
    ...(def.visibility ? { visibility: [...def.visibility] } : {}),
  };
  return { ui, ...(def.resourceUri ? { [RESOURCE_URI_META_KEY]: def.resourceUri } : {}) };
}

/** One panel resource as `registerPanelResource` takes it. */
export interface PanelResourceSpec {
  name: string;
  uri: string;
  title: string;
  description: string;
  meta: () => McpUiResourceMeta;
  read: () => string;
}

/**
 * The `_meta` of a panel resource: `ui` as ext-apps defines it, and its CSP again as ChatGPT's `openai/widgetCSP`
 * (`connect_domains`, `resource_domains`: the Apps SDK's compatibility key, snake_case), so both read the same origins.
 */
export function panelResourceMeta(ui: McpUiResourceMeta): Record<string, unknown> {
  return {
    ui,
    'openai/widgetCSP': { connect_domains: [...(ui.csp?.connectDomains ?? [])], resource_domains: [...(ui.csp?.resourceDomains ?? [])] },
  };
}

/**
 * Register one panel's `ui://` resource with ext-apps' `registerAppResource` (MIME `text/html;profile=mcp-app`);
 * its `_meta` (`panelResourceMeta`) goes on both the listing and the content item (hosts read the content item first).
 */
export function registerPanelResource(server: McpServer, p: PanelResourceSpec): void {
  registerAppResource(
    server,
    p.name,
    p.uri,
    { title: p.title, description: p.description, _meta: panelResourceMeta(p.meta()) },
    async () => ({
      contents: [{ uri: p.uri, mimeType: RESOURCE_MIME_TYPE, text: p.read(), _meta: panelResourceMeta(p.meta()) }],
    }),
  );
}
