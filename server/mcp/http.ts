import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import cors from 'cors';
import express, { type Request, type Response } from 'express';
import type { App } from '../app.ts';
import type { Principal } from '../domain/scope.ts';
import { findAction, isRouterName } from '../../shared/actions.ts';
import { ServiceError, toErrorResult } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { OAuthMount } from '../oauth/mount.ts';
import { OAUTH_PATH } from '../oauth/paths.ts';
import { authenticate } from '../tenancy/admin.ts';
import { cdnRouter } from './cdn.ts';
import {
  bearerAuth,
  createGuardedServer,
  healthz,
  hostGuard as hostGuardFor,
  jsonErrorHandler,
  mcpBody,
  notFoundHandler,
  refuseBatches,
  requestRateLimit,
  securityHeaders,
} from './http-guards.ts';
import { createServer } from './create-server.ts';
import { isLegacyHttpRequest, modernHttpLeg, type ModernHttpLeg } from './eras.ts';
import type { Extra } from './register-router.ts';

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  apiKeyId: string;
  lastSeenMs: number;
}

/** Sessions idle longer than this are closed (clients re-initialize), ms. */
/** The principal the bearer-auth middleware put on the request (`req.auth.extra.principal`). @throws Error when the middleware did not run (a wiring bug) */
function principalOf(req: Request): Principal {
  const principal = (req as Request & { auth?: { extra?: { principal?: Principal } } }).auth?.extra?.principal;
  if (!principal) throw new Error('no authenticated principal on the request: bearer auth must run before the MCP routes');
  return principal;
}

/** How to send more than the body limit allows, appended to the 413 message. */
const LIMIT_HINT =
  ' (ATELIER_MAX_REQUEST_BYTES): send larger image bytes through the chunked upload (svc_asset_upload_app begin/chunk/complete, then svc_asset_import with attachments)';

export const SESSION_IDLE_MS = 30 * 60 * 1000;

export interface HttpHandle {
  url: string;
  mcpUrl: string;
  close(): Promise<void>;
}

/** Principal attached to `req.auth.extra` by the bearer middleware, read back by the dispatcher. */
export function principalFromExtra(extra: Extra): Principal {
  const p = (extra.http?.authInfo?.extra as { principal?: Principal } | undefined)?.principal;
  if (!p) throw new ServiceError('unauthenticated', null, 'an API key is required (Authorization: Bearer <key>)');
  return p;
}

function rpcError(res: Response, status: number, message: string, headers: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/**
 * CORS for `/mcp` when `ATELIER_CORS_ORIGINS` is set (off otherwise: no CORS headers, so browsers refuse
 * cross-origin calls). A web MCP Apps host (e.g. ext-apps basic-host) whose page calls `/mcp` from its
 * own origin needs this: the preflight allows `Authorization` and the MCP headers, and `Mcp-Session-Id`
 * is exposed so the page can read the session it was given. No cookies are used, so credentials stay off.
 * Headers per the Streamable HTTP transport (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports).
 */
function corsFor(origins: string[]): express.RequestHandler {
  return cors({
    origin: origins.includes('*') ? '*' : origins,
    methods: ['GET', 'POST', 'DELETE'],
    // Mcp-Method / Mcp-Name: the standard headers of revision 2026-07-28 (SEP-2243), sent on every modern request
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Accept',
      'Mcp-Session-Id',
      'Mcp-Protocol-Version',
      'Mcp-Method',
      'Mcp-Name',
      'Last-Event-ID',
    ],
    exposedHeaders: ['Mcp-Session-Id', 'Mcp-Protocol-Version', 'WWW-Authenticate'],
    maxAge: 600,
  });
}

/**
 * Start the HTTP listener: Streamable HTTP MCP at `/mcp` for both protocol eras (eras.ts): 2026-07-28
 * requests statelessly, 2025-era clients in stateful sessions (one McpServer per session), behind Bearer API-key auth and Host-header validation (DNS-rebinding guard), plus the
 * `/cdn` route and `/healthz`; CORS for configured origins (`corsFor`). With `mcp: false` only the CDN is served (stdio mode).
 * @throws Error (code EADDRINUSE, EACCES …) when the port cannot be bound; nothing is left listening
 * MCP transport spec: https://modelcontextprotocol.io/specification/2025-06-18/basic/transports
 */
/**
 * The OAuth mount the configuration names: the external identity provider's resource server, or the built-in
 * authorization server. Imported only when OAuth is on: oidc-provider and jose are several hundred modules
 * that a stdio server or an API-key-only HTTP server never uses.
 */
async function loadOAuthMount(app: App, log: Logger): Promise<OAuthMount> {
  const external = app.config.oauthExternal;
  if (external) return (await import('../oauth/external-mount.ts')).externalOAuthMount(app, external, log);
  return (await import('../oauth/mount.ts')).oauthMount(app, log);
}

export async function startHttp(app: App, log: Logger, opts: { host: string; port: number; mcp: boolean }): Promise<HttpHandle> {
  const web = express();
  web.disable('x-powered-by');
  web.use(securityHeaders());
  const byKey = (key: string) => authenticate(app.library.tenancy, key);
  // OAuth (issue 37): API keys (`atl_…`) keep working; any other bearer credential is an access token, of the
  // built-in authorization server or of the external identity provider configured instead
  const oauth = opts.mcp && app.config.env.ATELIER_OAUTH ? await loadOAuthMount(app, log) : null;
  const byCredential = (token: string) => (token.startsWith('atl_') || !oauth ? byKey(token) : oauth.verify(token));
  // `service` and `data_id` let a second process on the same data dir recognise this listener and reuse it.
  // `instance` (ATELIER_INSTANCE_ID) names the process among several behind one proxy.
  const instance = app.config.env.ATELIER_INSTANCE_ID ?? null;
  web.get('/healthz', healthz(byKey, { dataId: app.dataId, instance }));
  const blobCfg = app.config.blobStore;
  web.use(
    cdnRouter(app.library.blobs, (key) => app.library.assets.blobByKey(key), {
      presignTtlS: blobCfg.kind === 's3' ? blobCfg.presignTtlS : 0,
      log: log.child({ mod: 'cdn' }),
    }),
  );
  const sessions = new Map<string, Session>();
  let modern: ModernHttpLeg | null = null;

  if (opts.mcp) {
    if (app.config.corsOrigins) web.use('/mcp', corsFor(app.config.corsOrigins));
    const modernLeg = (modern = modernHttpLeg(app.server, principalFromExtra, log));
    const hostGuard = hostGuardFor(opts.host, app.config.allowedHosts);
    if (oauth) {
      // the sign-in pages set cookies: a rebinding Host must not reach them any more than /mcp
      web.use([OAUTH_PATH, '/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource'], hostGuard);
      web.use(oauth.router);
    }
    const auth = bearerAuth(byCredential, log.child({ mod: 'auth' }), (error) =>
      oauth ? oauth.challenge(error) : 'Bearer realm="atelier"',
    );
    const perKey = requestRateLimit((p) => app.rateLimits.consumeRequest(p), log.child({ mod: 'rate-limits' }));
    const sessionOf = (req: Request, res: Response): Session | null => {
      const id = req.headers['mcp-session-id'];
      const s = typeof id === 'string' ? sessions.get(id) : undefined;
      if (!s) {
        rpcError(
          res,
          typeof id === 'string' ? 404 : 400,
          typeof id === 'string' ? 'unknown or expired session' : 'missing Mcp-Session-Id header',
        );
        return null;
      }
      const principal = principalOf(req);
      if (principal.apiKeyId !== s.apiKeyId) {
        rpcError(res, 403, 'session belongs to another API key');
        return null;
      }
      s.lastSeenMs = Date.now();
      return s;
    };

    /** Keep at most ATELIER_MAX_SESSIONS_PER_KEY − 1 sessions of a key before adding one: close the least recently used. */
    const evictBeyondCap = (apiKeyId: string): void => {
      const own = [...sessions].filter(([, s]) => s.apiKeyId === apiKeyId).sort((a, b) => a[1].lastSeenMs - b[1].lastSeenMs);
      for (const [id, s] of own.slice(0, Math.max(0, own.length - app.config.env.ATELIER_MAX_SESSIONS_PER_KEY + 1))) {
        sessions.delete(id);
        log.info({ api_key_id: apiKeyId, session: id }, 'session limit reached: closing the least recently used session');
        void s.transport.close().catch(() => undefined);
      }
    };
    /**
     * A session's tool call whose key or tenant this process has refused for the call's cost class, in a
     * window that has not reset, is answered here with the same `rate_limited` result, as one JSON response
     * (a server may answer a POST with application/json or an SSE stream): a refused flood then costs no
     * MCP session dispatch, argument parsing or SSE stream, the work that slowed other tenants' calls.
     */
    const refuseKnownLimited = (req: Request, res: Response, next: () => void): void => {
      const msg = req.body as { id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: { action?: unknown } } };
      const name = msg?.params?.name;
      const action = msg?.params?.arguments?.action;
      if (msg?.method !== 'tools/call' || typeof req.headers['mcp-session-id'] !== 'string') return next();
      if (typeof name !== 'string' || typeof action !== 'string' || !isRouterName(name) || !findAction(name, action)) return next();
      const refusal = app.rateLimits.refusedFromMemory(principalOf(req), name, action);
      if (!refusal) return next();
      if (!sessionOf(req, res)) return;
      res.status(200).json({ jsonrpc: '2.0', id: msg.id, result: toErrorResult(refusal.toPayload()) });
    };
    const body = mcpBody(app.config.env.ATELIER_MAX_REQUEST_BYTES);
    web.post('/mcp', hostGuard, auth, perKey, body, refuseBatches(), refuseKnownLimited, async (req, res) => {
      try {
        // 2026-07-28 requests (per-request `_meta` envelope, no session) go to the stateless leg (eras.ts)
        if (!isLegacyHttpRequest(req)) {
          await modernLeg.handle(req, res);
          return;
        }
        const id = req.headers['mcp-session-id'];
        if (typeof id === 'string' || !isInitializeRequest(req.body)) {
          const s = sessionOf(req, res);
          if (s) await s.transport.handleRequest(req, res, req.body);
          return;
        }
        const principal = principalOf(req);
        const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
          // "<instance>.<uuid>" behind a proxy that routes sessions by this prefix (deploy/nginx.conf)
          sessionIdGenerator: () => (instance ? `${instance}.${randomUUID()}` : randomUUID()),
          onsessioninitialized: (sid) => {
            evictBeyondCap(principal.apiKeyId);
            sessions.set(sid, { transport, apiKeyId: principal.apiKeyId, lastSeenMs: Date.now() });
          },
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        const server = await createServer(app.server, principalFromExtra, principal);
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
      } catch (e) {
        log.error({ err: e }, 'mcp request failed');
        if (!res.headersSent) rpcError(res, 500, 'internal error');
      }
    });
    const onSession = async (req: Request, res: Response): Promise<void> => {
      const s = sessionOf(req, res);
      if (s) await s.transport.handleRequest(req, res);
    };
    web.get('/mcp', hostGuard, auth, perKey, onSession);
    web.delete('/mcp', hostGuard, auth, perKey, onSession);
  }
  web.use(notFoundHandler());
  web.use(jsonErrorHandler(log, LIMIT_HINT));

  const sweep = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, s] of sessions) {
      if (s.lastSeenMs < cutoff) {
        sessions.delete(id);
        void s.transport.close().catch(() => undefined);
      }
    }
  }, 60_000);
  sweep.unref();
  const httpServer: HttpServer = createGuardedServer(web, {
    requestTimeoutMs: app.config.env.ATELIER_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: app.config.env.ATELIER_HEADERS_TIMEOUT_MS,
    maxConnections: app.config.env.ATELIER_MAX_CONNECTIONS,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(opts.port, opts.host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    clearInterval(sweep);
    throw e;
  }
  const addr = httpServer.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host;
  const url = `http://${host}:${addr.port}`;
  app.setCdnBase(url);
  try {
    await oauth?.start(url);
  } catch (e) {
    clearInterval(sweep);
    httpServer.close();
    throw e;
  }
  return {
    url,
    mcpUrl: `${url}/mcp`,
    async close() {
      clearInterval(sweep);
      for (const s of sessions.values()) await s.transport.close().catch(() => undefined);
      await modern?.close().catch(() => undefined);
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
