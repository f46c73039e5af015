import {
  McpServer,
  ProtocolErrorCode,
  type CacheHint,
  type JSONRPCMessage,
  type McpServerOptions,
  type ProtocolEra,
  type Transport,
} from '@modelcontextprotocol/server';
import type { ScopeResult } from '../../shared/schemas/scope.ts';
import type { Principal } from '../domain/scope.ts';
import type { Logger } from '../log.ts';
import type { RouterImpls } from '../routers/types.ts';
import { APPS_SERVER_CAPABILITY } from './apps.ts';
import type { InflightCalls } from './inflight.ts';
import { registerRouters, type PrincipalResolver } from './register-router.ts';
import { registerTaskMethods } from './task-methods.ts';
import { TASKS_SERVER_CAPABILITY, type ToolTasks } from './tasks.ts';

/** Everything one MCP session needs; shared across sessions. */
export interface ServerDeps {
  routers: RouterImpls;
  log: Logger;
  /** Registers `ui://` panel resources (MCP Apps) on a new server, when panels are built. */
  registerResources?: (server: McpServer) => void;
  version: string;
  /** tool calls in progress across every session of this process (graceful shutdown waits for them) */
  inflight?: InflightCalls;
  /** What an API key reaches (svc_discover scope), for the initialize instructions. */
  describeScope?: (principal: Principal) => Promise<Omit<ScopeResult, 'storage'>>;
  /** tool calls run as MCP tasks (2026-07-28 clients that declare the Tasks extension); none: every call is synchronous */
  tasks?: ToolTasks;
}

const BASE_INSTRUCTIONS =
  'Atelier holds the workspace image library and the store product catalog. Search the library first (svc_asset_library search); generate or import only when nothing fits. ' +
  'Product facts (prices, images, variants) come only from svc_catalog get_product. svc_discover scope lists the workspaces, themes and stores your API key reaches.';

/**
 * The `instructions` of initialize: what the server is for and, when the API key has exactly one active
 * workspace, the ids a model needs without asking anyone (theme_id for asset search, store_id).
 */
export function instructionsFor(scope: Omit<ScopeResult, 'storage'> | null): string {
  if (!scope) return BASE_INSTRUCTIONS;
  const d = scope.defaults;
  const ws = scope.workspaces.find((w) => w.id === d.workspace_id);
  if (!ws)
    return `${BASE_INSTRUCTIONS} Your key reaches several workspaces (or none active): call svc_discover scope and pass workspace_id.`;
  const theme = ws.themes.find((t) => t.id === d.theme_id);
  return (
    `${BASE_INSTRUCTIONS} Your key's workspace: "${ws.name}" (${ws.id}), used when workspace_id is omitted.` +
    (theme
      ? ` Pass theme_id ${theme.id} ("${theme.name}") to asset search and select.`
      : ' It has no default theme: see svc_discover scope.') +
    (d.store_id ? ` Store ${d.store_id} is used when store_id is omitted.` : ' Pass store_id to catalog calls (see svc_discover scope).')
  );
}

/** How long a 2026-07-28 client may reuse a listing or read, ms: they change only with a new release of the server. */
const LISTING_TTL_MS = 10 * 60_000;
/**
 * `ttlMs` / `cacheScope` of the cacheable results of revision 2026-07-28 (SEP-2549; 2025-era results never
 * carry them). Private: the tool list depends on the capabilities the client declared, the instructions of
 * `server/discover` on its API key.
 */
const CACHE_HINTS: Partial<Record<'tools/list' | 'resources/list' | 'resources/read' | 'server/discover', CacheHint>> = {
  'tools/list': { ttlMs: LISTING_TTL_MS, cacheScope: 'private' },
  'resources/list': { ttlMs: LISTING_TTL_MS, cacheScope: 'private' },
  'resources/read': { ttlMs: LISTING_TTL_MS, cacheScope: 'private' },
  'server/discover': { ttlMs: LISTING_TTL_MS, cacheScope: 'private' },
};

/**
 * The server capabilities of an era: tools and MCP Apps for both; `logging` only for 2025-era clients (the
 * 2026-07-28 revision deprecates it, SEP-2577; Atelier sends no log messages to clients either way); the
 * Tasks extension (`io.modelcontextprotocol/tasks`, an empty object) for 2026-07-28 clients when `tasks`.
 */
export function capabilitiesFor(era: ProtocolEra, tasks = false): NonNullable<McpServerOptions['capabilities']> {
  if (era !== 'modern') return { logging: {}, ...APPS_SERVER_CAPABILITY };
  return tasks
    ? { extensions: { ...APPS_SERVER_CAPABILITY.extensions, ...TASKS_SERVER_CAPABILITY.extensions } }
    : { ...APPS_SERVER_CAPABILITY };
}

/**
 * Build one McpServer with every router tool: one per session for a 2025-era HTTP client, one per request
 * for a 2026-07-28 HTTP request, one per connection for stdio.
 * @param principal the API key's principal when known at connect time: the instructions then name its default ids
 * @param era the protocol era the server will serve (capabilities differ; see `capabilitiesFor`)
 */
export async function createServer(
  deps: ServerDeps,
  resolvePrincipal: PrincipalResolver,
  principal?: Principal,
  era: ProtocolEra = 'legacy',
): Promise<McpServer> {
  const scope = principal && deps.describeScope ? await deps.describeScope(principal) : null;
  const server = new McpServer(
    { name: 'atelier', title: 'Atelier asset library and product catalog', version: deps.version },
    {
      capabilities: capabilitiesFor(era, deps.tasks !== undefined),
      instructions: instructionsFor(scope),
      cacheHints: CACHE_HINTS,
    },
  );
  registerRouters(server, deps.routers, resolvePrincipal, deps.log, deps.inflight, era, deps.tasks);
  if (era === 'modern' && deps.tasks) registerTaskMethods(server, deps.tasks, resolvePrincipal);
  deps.registerResources?.(server);
  guardToolCallParams(server);
  return server;
}

/**
 * What is wrong with the params of a `tools/call` request, in words, or null when their shape is right
 * (`{name: string, arguments?: object, _meta?: object}`, MCP `CallToolRequest`).
 */
export function toolCallParamsProblem(params: unknown): string | null {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(params))
    return `params must be an object {"name": "<tool>", "arguments": {…}} (got ${params === undefined ? 'none' : Array.isArray(params) ? 'an array' : typeof params})`;
  if (typeof params.name !== 'string' || params.name.length === 0)
    return `params.name must be a string naming the tool (got ${params.name === undefined ? 'none' : typeof params.name})`;
  if (params.arguments !== undefined && !isObject(params.arguments))
    return `params.arguments must be an object such as {"action": "<name>", "args": {…}} (got ${Array.isArray(params.arguments) ? 'an array' : typeof params.arguments})`;
  if (params._meta !== undefined && !isObject(params._meta)) return 'params._meta must be an object';
  return null;
}

/** MCP `LoggingLevel` (RFC 5424 severities), the values `logging/setLevel` accepts. */
const LOGGING_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/**
 * What is wrong with the params of a request the SDK would answer -32603 for (its zod parse or a
 * `new URL` throwing), or null: `tools/call` (`toolCallParamsProblem`), `logging/setLevel` (a known
 * `level`), `resources/read` (a `uri` that parses as a URI).
 */
export function requestParamsProblem(method: unknown, params: unknown): string | null {
  const p = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
  if (method === 'tools/call') return toolCallParamsProblem(params);
  if (method === 'logging/setLevel' && !(typeof p.level === 'string' && LOGGING_LEVELS.has(p.level)))
    return `params.level must be one of ${[...LOGGING_LEVELS].join(', ')}`;
  if (method === 'resources/read' && !(typeof p.uri === 'string' && URL.canParse(p.uri)))
    return 'params.uri must be an absolute URI such as ui://atelier/…';
  return null;
}

/**
 * Answer a `tools/call` whose params have the wrong shape (and a `logging/setLevel` or `resources/read`
 * with bad params: `requestParamsProblem`) with JSON-RPC -32602 Invalid params and a plain message. The SDK would parse them with zod first and answer -32603 Internal error with the zod issue
 * dump (or, for non-object params, drop the message unanswered). Installed on every transport the server
 * connects to, in front of the SDK's message handler.
 * Error codes: https://www.jsonrpc.org/specification#error_object
 */
function guardToolCallParams(server: McpServer): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport): Promise<void> => {
    await connect(transport);
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as { method?: unknown; id?: unknown; params?: unknown };
      if (typeof m.id === 'string' || typeof m.id === 'number') {
        const problem = requestParamsProblem(m.method, m.params);
        if (problem) {
          const reply = {
            jsonrpc: '2.0',
            id: m.id,
            error: { code: ProtocolErrorCode.InvalidParams, message: `Invalid params: ${problem}` },
          } as JSONRPCMessage;
          void transport.send(reply, { relatedRequestId: m.id }).catch(() => undefined);
          return;
        }
      }
      inner?.(message, extra);
    };
  };
}
