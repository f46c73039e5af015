/**
 * Both protocol eras from one `/mcp` endpoint (v2 SDK docs, "Support legacy clients" → "Keep a sessionful
 * 2025 deployment running"): a request that carries the 2026-07-28 per-request `_meta` envelope goes to the
 * SDK's stateless `createMcpHandler` (a fresh McpServer per request, no `Mcp-Session-Id`); everything else
 * (`initialize`, requests of a 2025-06-18 / 2025-11-25 session) stays on the sessionful wiring of http.ts.
 * The split is the SDK's own classification (`classifyInboundRequest`, the step its `isLegacyRequest` and
 * `createMcpHandler` run), so the two legs never disagree with it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { classifyInboundRequest, createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import type { ServerDeps } from './create-server.ts';
import { createServer } from './create-server.ts';
import type { Principal } from '../domain/scope.ts';
import type { Logger } from '../log.ts';
import type { PrincipalResolver } from './register-router.ts';

/** The principal the bearer middleware put in `req.auth.extra.principal` (AuthInfo travels into the SDK as is). */
function principalOfAuth(authInfo: AuthInfo | undefined): Principal | undefined {
  return (authInfo?.extra as { principal?: Principal } | undefined)?.principal;
}

/**
 * Whether a parsed `/mcp` POST is a 2025-era one (no per-request envelope claim). This is what the SDK's
 * `isLegacyRequest(request, parsedBody)` decides: a POST without a parsed JSON body is legacy, anything else
 * is what `classifyInboundRequest` says of its method, its three MCP headers and the body. It is called
 * with those facts directly: building a WHATWG `Request` (URL, `Headers`) for every call only to read three
 * headers back cost more than the decision (bench/load-profile.ts). The body is the one express.json()
 * already parsed.
 */
export function isLegacyHttpRequest(req: IncomingMessage & { body?: unknown }): boolean {
  if (req.body === undefined) return true;
  // as `Headers.get` reads them: repeated values joined by ", "
  const header = (name: string): string | undefined => {
    const v = req.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  const outcome = classifyInboundRequest({
    httpMethod: (req.method ?? 'POST').toUpperCase(),
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
    body: req.body,
  });
  return outcome.kind === 'legacy';
}

/** The 2026-07-28 leg: serve one request (after auth: `req.auth` holds the principal) and shut down. */
export interface ModernHttpLeg {
  handle(req: IncomingMessage & { body?: unknown; auth?: AuthInfo }, res: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

/**
 * The modern leg: `createMcpHandler` in its strict posture (`legacy: 'reject'`: 2025-era traffic never
 * reaches it, http.ts routes that to its sessions). The factory builds the same McpServer as a legacy
 * session, for era `modern`; the instructions (which need a database read for the key's scope) are built
 * only for `server/discover`, the one modern result that carries them.
 */
export function modernHttpLeg(deps: ServerDeps, resolvePrincipal: PrincipalResolver, log: Logger): ModernHttpLeg {
  const handler = createMcpHandler(
    async ({ authInfo, requestInfo }) => {
      const discover = requestInfo?.headers.get('mcp-method') === 'server/discover';
      return createServer(deps, resolvePrincipal, discover ? principalOfAuth(authInfo) : undefined, 'modern');
    },
    { legacy: 'reject', onerror: (err) => log.warn({ err }, 'modern MCP request rejected or failed') },
  );
  const node = toNodeHandler(handler, { onerror: (err) => log.error({ err }, 'modern MCP request failed') });
  return {
    handle: (req, res) => node(req, res, req.body),
    close: () => handler.close(),
  };
}
