import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildApp, type App } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './log.ts';
import { createServer } from './mcp/create-server.ts';
import { startHttp, type HttpHandle } from './mcp/http.ts';
import { authenticate } from './tenancy/admin.ts';
import { ServiceError } from './errors.ts';

export interface Running { app: App; http: HttpHandle; log: Logger; stop(): Promise<void> }

/** Load config and build the app (the composition root shared by every CLI command). */
export function boot(env: Record<string, string | undefined> = process.env): { config: Config; app: App; log: Logger } {
  const config = loadConfig(env);
  const log = createLogger(config.logLevel);
  const app = buildApp(config, log);
  return { config, app, log };
}

/**
 * Serve MCP over Streamable HTTP at `/mcp` (with the CDN on the same listener).
 */
export async function serveHttp(app: App, log: Logger, port = app.config.port): Promise<Running> {
  const http = await startHttp(app, log, { host: app.config.host, port, mcp: true });
  log.info({ url: http.mcpUrl }, 'MCP Streamable HTTP listening');
  return { app, http, log, stop: async () => { await http.close(); await app.close(); } };
}

/**
 * Serve MCP over stdio (stdout carries JSON-RPC only) with the API key from ATELIER_API_KEY; the CDN
 * listener still runs on the configured port so asset URLs resolve.
 * @throws Error when ATELIER_API_KEY is missing or unknown
 */
export async function serveStdio(app: App, log: Logger, port = app.config.port): Promise<Running> {
  if (!app.config.apiKey) throw new Error('ATELIER_API_KEY is required for the stdio transport (create one with `atelier keys create` or `atelier seed-demo --json`)');
  const principal = authenticate(app.library.tenancy, app.config.apiKey);
  if (!principal) throw new Error('ATELIER_API_KEY is not a valid API key for this data directory');
  const http = await startHttp(app, log, { host: app.config.host, port, mcp: false });
  const server = createServer(app.server, () => {
    if (!authenticate(app.library.tenancy, app.config.apiKey!)) throw new ServiceError('unauthenticated', null, 'ATELIER_API_KEY has been revoked');
    return principal;
  });
  await server.connect(new StdioServerTransport());
  log.info({ cdn: http.url }, 'MCP stdio ready');
  return { app, http, log, stop: async () => { await server.close(); await http.close(); await app.close(); } };
}
