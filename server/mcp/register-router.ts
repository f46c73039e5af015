import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { actionsOf, findAction, ROUTERS, type RouterDef } from '../../shared/actions.ts';
import { inputJsonSchema } from '../domain/discover.ts';
import type { Principal } from '../domain/scope.ts';
import { fromZodError, ServiceError, toErrorResult } from '../errors.ts';
import { withCallLog } from '../call-context.ts';
import type { Logger } from '../log.ts';
import type { ActionContext, RouterImpl } from '../routers/types.ts';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Resolves the authenticated caller of a request. @throws ServiceError unauthenticated */
export type PrincipalResolver = (extra: Extra) => Principal;

/**
 * The MCP tool definition of a router: `{action, args}` input where `action` is an enum of the
 * router's actions and each action's args schema is attached with `if/then` (JSON Schema 2020-12),
 * so the schema in tools/list is the same one the dispatcher validates.
 */
export function toolDefinition(def: RouterDef, impl: RouterImpl): Tool {
  const actions = actionsOf(def.name).filter((a) => impl.handlers[a.action]);
  const names = actions.map((a) => a.action);
  const inputSchema = {
    type: 'object' as const,
    properties: {
      action: { type: 'string', enum: names, description: actions.map((a) => `${a.action}: ${a.description}`).join(' | ') },
      args: { type: 'object', description: 'arguments of the chosen action (schemas per action below and in svc_discover)' },
    },
    required: ['action'],
    additionalProperties: false,
    allOf: actions.map((a) => {
      const { $schema: _ignored, ...schema } = inputJsonSchema(a.args);
      return { if: { properties: { action: { const: a.action } } }, then: { properties: { args: schema } } };
    }),
  };
  const meta: Record<string, unknown> = {};
  if (def.resourceUri || def.visibility) {
    meta.ui = { ...(def.resourceUri ? { resourceUri: def.resourceUri } : {}), ...(def.visibility ? { visibility: def.visibility } : {}) };
    // Hosts that predate the nested form read the flat key (as ext-apps' registerAppTool writes both).
    if (def.resourceUri) meta['ui/resourceUri'] = def.resourceUri;
  }
  return {
    name: def.name,
    title: def.title,
    description: `${def.description} Actions: ${names.join(', ')}. Call with {"action": "<name>", "args": {…}}.`,
    inputSchema,
    annotations: { title: def.title, ...def.annotations },
    ...(Object.keys(meta).length ? { _meta: meta } : {}),
  };
}

/**
 * Install tools/list and tools/call for the router tools on an McpServer. This is the only catch site:
 * `ServiceError` → `isError: true` result with `{code, field, message}`; anything else → `internal`
 * (logged with stack, generic message out). Unknown tools stay protocol errors (McpError).
 */
export function registerRouters(mcp: McpServer, routers: RouterImpl[], resolvePrincipal: PrincipalResolver, log: Logger): void {
  const server = mcp.server;
  const impls = new Map(routers.map((r) => [r.name, r]));
  const defs = ROUTERS.filter((d) => impls.has(d.name));
  server.registerCapabilities({ tools: { listChanged: false } });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: defs.map((d) => toolDefinition(d, impls.get(d.name)!)) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    const impl = impls.get(name as RouterImpl['name']);
    if (!impl) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    const started = performance.now();
    const input = (request.params.arguments ?? {}) as Record<string, unknown>;
    const action = input.action;
    let principal: Principal | undefined;
    let outcome = 'ok';
    const logged = await withCallLog(async (): Promise<CallToolResult> => {
      try {
        principal = resolvePrincipal(extra);
        const allowed = Object.keys(impl.handlers);
        if (typeof action !== 'string' || !allowed.includes(action)) {
          throw new ServiceError('invalid_argument', 'action', `must be one of: ${allowed.join(', ')}${typeof action === 'string' ? ` (got "${action}")` : ''}`, { details: { allowed } });
        }
        const unknownKeys = Object.keys(input).filter((k) => k !== 'action' && k !== 'args');
        if (unknownKeys.length) throw new ServiceError('invalid_argument', unknownKeys[0]!, `unknown field(s): ${unknownKeys.join(', ')}; put action parameters inside args`);
        const def = findAction(name, action)!;
        const rawArgs = input.args ?? {};
        if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) throw new ServiceError('invalid_argument', 'args', 'must be an object');
        const parsed = def.args.safeParse(rawArgs);
        if (!parsed.success) throw fromZodError(parsed.error);
        const progressToken = extra._meta?.progressToken;
        const ctx: ActionContext = {
          principal,
          signal: extra.signal,
          sessionId: extra.sessionId,
          clientCapabilities: server.getClientCapabilities(),
          server,
          log,
          progress: async (progress, total, message) => {
            if (progressToken === undefined) return;
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) } });
          },
        };
        const out = await impl.handlers[action]!(parsed.data, ctx);
        const checked = def.result.safeParse(out.structuredContent);
        if (!checked.success) {
          log.error({ router: name, action, issues: checked.error.issues.slice(0, 5) }, 'result does not match its schema');
          throw new Error(`result of ${name}.${action} does not match its schema`);
        }
        return {
          content: [...(out.content ?? []), { type: 'text', text: out.text }],
          structuredContent: out.structuredContent,
          ...(out._meta ? { _meta: out._meta } : {}),
        };
      } catch (e) {
        if (e instanceof ServiceError) {
          outcome = e.code;
          return toErrorResult(e.toPayload());
        }
        outcome = 'internal';
        log.error({ err: e, router: name, action }, 'action failed');
        return toErrorResult({ code: 'internal', field: null, message: 'internal error; the request was not completed (see server log)' });
      }
    });
    log.info({ router: name, action, duration_ms: Math.round(performance.now() - started), outcome, tenant_id: principal?.tenantId, ...logged.fields }, 'tool call');
    return logged.result;
  });
}
