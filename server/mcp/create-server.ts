import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '../log.ts';
import type { RouterImpl } from '../routers/types.ts';
import { registerRouters, type PrincipalResolver } from './register-router.ts';

/** MCP Apps extension id (SEP-1865), declared in server capabilities so hosts render panels. */
export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/** Everything one MCP session needs; shared across sessions. */
export interface ServerDeps {
  routers: RouterImpl[];
  log: Logger;
  /** Registers `ui://` panel resources (MCP Apps) on a new server, when panels are built. */
  registerResources?: (server: McpServer) => void;
  version: string;
}

/**
 * Build one McpServer (one per session for HTTP, one per process for stdio) with every router tool.
 */
export function createServer(deps: ServerDeps, resolvePrincipal: PrincipalResolver): McpServer {
  const server = new McpServer(
    { name: 'atelier', title: 'Atelier asset library and product catalog', version: deps.version },
    {
      capabilities: { logging: {}, extensions: { [UI_EXTENSION_ID]: {} } } as Record<string, unknown>,
      instructions:
        'Atelier holds the workspace image library and the store product catalog. Search the library first (svc_asset_library search); generate or import only when nothing fits. Product facts (prices, images, variants) come only from get_product. svc_discover resolves former operation names to router/action pairs.',
    },
  );
  registerRouters(server, deps.routers, resolvePrincipal, deps.log);
  deps.registerResources?.(server);
  return server;
}
