import { createServer, type RequestListener, type Server as HttpServer } from 'node:http';
import net from 'node:net';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import type { Principal } from '../domain/scope.ts';
import type { Logger } from '../log.ts';

/**
 * Guards of the public HTTP listener (issue 36): security headers, the Host check, authentication before
 * any body is read, the body cap, connection limits and timeouts, and a final JSON error handler.
 * Kept apart from http.ts (the MCP transport wiring) so either can change without the other.
 */

/** A JSON-RPC error object with no id (https://www.jsonrpc.org/specification#error_object). */
function rpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * Security headers on every route (helmet 8): no MIME sniffing, no framing (`frame-ancestors 'none'`),
 * no referrer, HSTS (browsers apply it only over TLS), a `default-src 'none'` CSP since nothing here is a
 * page. The `/a/` blob route sets its own sandbox CSP after this, which replaces this one; blobs are
 * embedded by other origins, so `Cross-Origin-Resource-Policy` is `cross-origin`.
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
  });
}

/** Whether a bind address reaches only this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  return host === '::1' || host === '[::1]';
}

/**
 * The DNS-rebinding guard of `/mcp`: the Host header's hostname (port ignored) must be one of
 * ATELIER_ALLOWED_HOSTS, or a localhost name when bound to loopback. Always on: a listener beyond
 * loopback without allowed hosts is refused at start.
 * @throws Error when `bindHost` is not loopback and `allowedHosts` is null or empty
 */
export function hostGuard(bindHost: string, allowedHosts: string[] | null): RequestHandler {
  if (!isLoopbackHost(bindHost) && !allowedHosts?.length)
    throw new Error(
      `ATELIER_HOST=${bindHost} is not a loopback address: set ATELIER_ALLOWED_HOSTS to the host names clients use (e.g. atelier.example.com) so /mcp can refuse other Host headers (DNS rebinding)`,
    );
  const allowed = new Set(allowedHosts?.length ? allowedHosts.map((h) => h.toLowerCase()) : ['localhost', '127.0.0.1', '[::1]']);
  return (req, res, next) => {
    let hostname: string | null;
    try {
      hostname = req.headers.host ? new URL(`http://${req.headers.host}`).hostname : null;
    } catch {
      hostname = null;
    }
    if (!hostname || !allowed.has(hostname)) return rpcError(res, 403, -32000, 'Host header not allowed');
    next();
  };
}

/**
 * Bearer API-key authentication that reads headers only, so it runs before the body parser: a request
 * without a valid key is answered 401 and its connection closed without reading its body. Failures are
 * logged (reason, client address, user agent; never the key). On success `req.auth` carries the principal
 * (`req.auth.extra.principal`, the shape the MCP SDK passes on as `authInfo`).
 * The 401 carries `challenge(error)` as `WWW-Authenticate` (with OAuth on: the resource metadata URL,
 * RFC 9728 §5.1, and `error="invalid_token"` when a credential was presented); a valid token that reaches
 * nothing here is answered 403 with `error="insufficient_scope"` (RFC 6750 §3.1).
 * @param authenticate the principal of a presented key or access token, null when none matches, or
 *   `{ insufficientScope }` (the reason) when it is valid but grants nothing here
 */
export function bearerAuth(
  authenticate: (key: string) => Promise<Principal | null | { insufficientScope: string }>,
  log: Logger,
  challenge: (error: 'invalid_token' | 'insufficient_scope' | null) => string = () => 'Bearer realm="atelier"',
): RequestHandler {
  return (req, res, next) => {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    void (m ? authenticate(m[1]!) : Promise.resolve(null)).then(
      (verdict) => {
        const refused = (status: 401 | 403, reason: string, message: string): void => {
          log.warn(
            { reason, remote: req.socket.remoteAddress, user_agent: req.headers['user-agent'], method: req.method, path: req.path },
            'authentication failed',
          );
          // the body stays unread: closing the connection spares reading it
          res.setHeader('Connection', 'close');
          res.setHeader('WWW-Authenticate', challenge(status === 403 ? 'insufficient_scope' : m ? 'invalid_token' : null));
          rpcError(res, status, -32000, message);
        };
        if (verdict && 'insufficientScope' in verdict) return refused(403, 'insufficient_scope', verdict.insufficientScope);
        if (!m)
          return refused(
            401,
            req.headers.authorization ? 'malformed_authorization' : 'missing_authorization',
            'missing API key: send Authorization: Bearer <key>',
          );
        if (!verdict) {
          const key = m[1]!.startsWith('atl_');
          return refused(401, key ? 'unknown_key' : 'invalid_token', key ? 'invalid API key' : 'invalid or expired access token');
        }
        (req as Request & { auth?: unknown }).auth = {
          token: m[1]!,
          clientId: verdict.apiKeyId,
          scopes: [],
          extra: { principal: verdict },
        };
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

/** Deepest nesting of arrays and objects a `/mcp` body may have (MCP messages nest fewer than ten levels). */
export const MAX_BODY_DEPTH = 128;

/**
 * Whether a parsed JSON value nests arrays and objects deeper than `max` levels. Iterative, so a hostile
 * body cannot overflow the stack here; it stops at the first path past `max`.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The `/mcp` JSON body parser: at most `limitBytes` after inflation (gzip, deflate and br bodies are
 * inflated as a stream and cut at the limit, so a small compressed body cannot grow past it), refused
 * before reading when Content-Length says more, and refused when it nests deeper than `MAX_BODY_DEPTH`:
 * JSON.parse takes any depth, but the transport serialises the message again recursively (a 100,000-level
 * body overflowed its stack: an internal error instead of an answer). Errors go to `jsonErrorHandler`.
 */
export function mcpBody(limitBytes: number): RequestHandler {
  const json = express.json({ limit: limitBytes, inflate: true });
  return (req, res, next) =>
    json(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (nestsDeeperThan(req.body, MAX_BODY_DEPTH))
        return next(Object.assign(new Error('body nests too deep'), { status: 400, type: 'entity.too.deep' }));
      next();
    });
}

/**
 * The HTTP server with timeouts and a connection cap: a client must send its headers within
 * `headersTimeoutMs` and its whole request within `requestTimeoutMs` (Node answers 408 and closes the
 * connection, checking every second; responses such as SSE streams are not limited), and connections
 * beyond `maxConnections` are closed on arrival.
 */
export function createGuardedServer(
  handler: RequestListener,
  o: { requestTimeoutMs: number; headersTimeoutMs: number; maxConnections: number },
): HttpServer {
  const server = createServer(
    {
      requestTimeout: o.requestTimeoutMs,
      headersTimeout: Math.min(o.headersTimeoutMs, o.requestTimeoutMs),
      connectionsCheckingInterval: 1000,
    },
    handler,
  );
  server.maxConnections = o.maxConnections;
  return server;
}

interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  limit?: number;
  length?: number;
}

/**
 * The last error handler of the app: every error becomes a JSON answer with a fixed message per kind;
 * a stack, a path or an exception's message never reaches the client, whatever NODE_ENV says (Express's
 * default handler sends the stack outside production). Unexpected errors (5xx) are logged with their stack.
 * `/mcp` errors have the JSON-RPC shape; others are `{error: {code, message}}`.
 * @param limitHint words appended to the 413 message (how to send more)
 */
export function jsonErrorHandler(log: Logger, limitHint: string): ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const e = (err ?? {}) as HttpishError;
    const status = e.status ?? e.statusCode ?? 500;
    const known: Record<string, [number, string]> = {
      'entity.too.large': [-32600, `request body exceeds the limit of ${e.limit} bytes${limitHint}`],
      'entity.parse.failed': [-32700, 'Parse error: the request body is not valid JSON'],
      'entity.too.deep': [-32600, `the request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`],
      'encoding.unsupported': [-32600, 'unsupported Content-Encoding: send identity, gzip, deflate or br'],
      'charset.unsupported': [-32600, 'unsupported charset: send UTF-8 JSON'],
      'request.aborted': [-32600, 'the request was aborted'],
      'request.size.invalid': [-32600, 'the request body does not match its Content-Length'],
    };
    let [code, message]: [number, string] = (e.type ? known[e.type] : undefined) ?? [-32600, 'bad request'];
    if (err instanceof URIError) message = 'malformed percent-encoding in the URL';
    const out = status >= 400 && status < 500 ? status : 500;
    if (out === 500) {
      log.error({ err, method: req.method, path: req.path }, 'request failed');
      code = -32603;
      message = 'internal error';
    }
    res.setHeader('Cache-Control', 'no-store');
    // the body may be unread (refused on its Content-Length or encoding): do not wait for it
    if (e.type === 'entity.too.large' || e.type === 'encoding.unsupported') res.setHeader('Connection', 'close');
    if (req.path === '/mcp') return rpcError(res, out, code, message);
    res.status(out).json({ error: { code: out === 500 ? 'internal' : 'bad_request', message } });
  };
}

/** The answer for a route nobody serves: a JSON 404 (not Express's HTML page, which echoes the path). */
export function notFoundHandler(): RequestHandler {
  return (_req, res) => void res.status(404).json({ error: { code: 'not_found', message: 'not found' } });
}

/**
 * `GET /healthz`: `{ok, service}` to anyone; with a valid `Authorization: Bearer` key also `data_id` (the
 * data dir's random id, which lets a stdio process on the same data dir recognise this listener) and
 * `instance` (ATELIER_INSTANCE_ID). Identifiers stay private so the endpoint tells a stranger nothing.
 */
export function healthz(
  authenticate: (key: string) => Promise<Principal | null>,
  info: { dataId: string; instance: string | null },
): RequestHandler {
  return (req, res, next) => {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    void (m ? authenticate(m[1]!) : Promise.resolve(null)).then((p) => {
      res.setHeader('Cache-Control', 'no-store');
      res.json(p ? { ok: true, service: 'atelier', data_id: info.dataId, instance: info.instance } : { ok: true, service: 'atelier' });
    }, next);
  };
}

/** Protocol versions whose Streamable HTTP transport accepts JSON-RPC batches (2025-06-18 dropped them). */
const BATCHING_VERSIONS = new Set(['2024-11-05', '2025-03-26']);
/** Most messages in one batch on those versions: a batch runs its calls back to back on one request. */
export const MAX_BATCH_MESSAGES = 16;

/**
 * Refuse JSON-RPC batches (a JSON array body) unless the request's protocol version has them: the
 * `Mcp-Protocol-Version` header, or for an `initialize` batch its requested version; a request without
 * the header is taken as 2025-03-26, as the transport spec says. Allowed batches hold at most
 * `MAX_BATCH_MESSAGES` messages. Answers 400 with a JSON-RPC -32600 error.
 * Spec: https://modelcontextprotocol.io/specification/2025-06-18/changelog (batching removed)
 */
export function refuseBatches(): RequestHandler {
  return (req, res, next) => {
    const body: unknown = req.body;
    if (!Array.isArray(body)) return next();
    const header = req.headers['mcp-protocol-version'];
    const init = body.find((m: { method?: unknown }) => m?.method === 'initialize') as
      { params?: { protocolVersion?: unknown } } | undefined;
    const version =
      typeof header === 'string' ? header : typeof init?.params?.protocolVersion === 'string' ? init.params.protocolVersion : '2025-03-26';
    if (!BATCHING_VERSIONS.has(version))
      return rpcError(res, 400, -32600, `JSON-RPC batches are not supported in protocol version ${version}: send one message per request`);
    if (body.length > MAX_BATCH_MESSAGES)
      return rpcError(res, 400, -32600, `a batch holds at most ${MAX_BATCH_MESSAGES} messages; this one has ${body.length}`);
    next();
  };
}

/**
 * Per-key request limit before the MCP layer (issue 36 finding 5): after `bearerAuth`, before the body is
 * read, count the request against its key's HTTP request budget (every message: initialize, tools/list,
 * notifications, tool calls, GET and DELETE of a session). Over it: HTTP 429 with `Retry-After` (s) and a
 * JSON-RPC error; the body stays unread, so the connection is closed. Tool calls are limited again by
 * cost class in the MCP layer (a structured `rate_limited` tool error), so this one is the coarse cap.
 * @param consume null when allowed, else seconds until the key's window resets (tenancy/rate-limits.ts `consumeRequest`)
 */
export function requestRateLimit(consume: (principal: Principal) => Promise<number | null>, log: Logger): RequestHandler {
  return (req, res, next) => {
    const principal = (req as Request & { auth?: { extra?: { principal?: Principal } } }).auth?.extra?.principal;
    if (!principal) return next(new Error('requestRateLimit runs after bearerAuth'));
    void consume(principal).then(
      (retryAfterS) => {
        if (retryAfterS === null) return next();
        log.info({ api_key_id: principal.apiKeyId, retry_after_s: retryAfterS }, 'HTTP request limit of the key reached');
        res.setHeader('Retry-After', String(retryAfterS));
        res.setHeader('Connection', 'close');
        rpcError(res, 429, -32000, `too many requests for this API key; retry after ${retryAfterS} s (Retry-After)`);
      },
      (err: unknown) => next(err),
    );
  };
}
