/**
 * Both protocol eras from one `/mcp` endpoint (v2 SDK docs, "Support legacy clients" → "Keep a sessionful
 * 2025 deployment running"): a request that carries the 2026-07-28 per-request `_meta` envelope goes to the
 * SDK's stateless `createMcpHandler` (a fresh McpServer per request, no `Mcp-Session-Id`); everything else
 * (`initialize`, requests of a 2025-06-18 / 2025-11-25 session) stays on the sessionful wiring of http.ts.
 * The split is the SDK's own classification (`isLegacyRequest`), so the two legs never disagree with it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
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
 * Whether a parsed `/mcp` request is a 2025-era one (no per-request envelope claim), by the SDK's
 * `isLegacyRequest`. Only the headers are copied into the `Request` it reads: the body is the one
 * express.json() already parsed (an import's base64 is not serialised a second time).
 */
export async function isLegacyHttpRequest(req: IncomingMessage & { body?: unknown }): Promise<boolean> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === 'string') headers.set(k, v);
    else if (Array.isArray(v)) for (const one of v) headers.append(k, one);
  }
  const request = new Request(new URL(req.url ?? '/mcp', 'http://atelier.invalid'), { method: req.method ?? 'POST', headers });
  return isLegacyRequest(request, req.body);
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
