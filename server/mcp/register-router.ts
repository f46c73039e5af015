import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type McpServer,
  type ProtocolEra,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import {
  actionsOf,
  findAction,
  isRouterName,
  ROUTERS,
  type ActionDef,
  type RouterDef,
  type RouterName,
  type ToolAnnotationsSpec,
} from '../../shared/actions.ts';
import { routerInputSchema, type ListingMemory } from './tool-schema.ts';
import type { Principal } from '../domain/scope.ts';
import { fromZodError, ServiceError, toErrorResult } from '../errors.ts';
import { withCallLog } from '../call-context.ts';
import type { Logger } from '../log.ts';
import type { ActionContext, ActionOutput, InputRequiredOutput, RouterImpls } from '../routers/types.ts';
import { clientRendersPanels, isPanelOnly, toolUiMeta } from './apps.ts';
import type { InflightCalls } from './inflight.ts';
import { clientDeclaresTasks, type ToolTasks } from './tasks.ts';

export type Extra = ServerContext;

/**
 * The capabilities the client of this request declared: on a 2026-07-28 request those of its `_meta`
 * envelope (`io.modelcontextprotocol/clientCapabilities`, sent with every request), on a 2025-era
 * connection those of its initialize. Source: the v2 SDK's "Protocol versions" matrix (client identity row).
 */
export function clientCapabilitiesOf(mcp: McpServer, extra: Extra): ClientCapabilities | undefined {
  const fromEnvelope = (extra.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return (fromEnvelope as ClientCapabilities | undefined) ?? mcp.server.getClientCapabilities();
}

/** Resolves the authenticated caller of a request. @throws ServiceError unauthenticated */
export type PrincipalResolver = (extra: Extra) => Principal | Promise<Principal>;

/**
 * The MCP tool definition of a router: `{action, args}` input where `action` is the enum of the router's
 * actions and `args` their compact per-action schemas (mcp/tool-schema.ts); the full schemas are in
 * svc_discover. `_meta.ui` links the panel (MCP Apps).
 */
export function toolDefinition(def: RouterDef, opts: { panels: boolean; memory?: ListingMemory } = { panels: true }): Tool {
  const actions = actionsOf(def.name);
  // A client that declared MCP Apps gets the full `_meta` (both resourceUri keys, visibility). Others get
  // `ui.resourceUri` alone: some hosts render panels without declaring the extension, and they need it.
  const meta = opts.panels ? toolUiMeta(def) : def.resourceUri ? { ui: { resourceUri: def.resourceUri } } : undefined;
  return {
    name: def.name,
    title: def.title,
    description: opts.panels && def.panelNote ? `${def.description} ${def.panelNote}` : def.description,
    // Panel-only tools are called by our own panels, never by a model: their arguments need no prose.
    inputSchema: routerInputSchema(actions, { memory: opts.memory, describeArgs: !isPanelOnly(def) }) as Tool['inputSchema'],
    annotations: compactAnnotations(def.annotations),
    ...(meta ? { _meta: meta } : {}),
  };
}

/**
 * Tool annotations without the hints that equal MCP's defaults (readOnlyHint false, destructiveHint true,
 * idempotentHint false, openWorldHint true; MCP 2025-06-18 `ToolAnnotations`); destructive and idempotent
 * hints only matter for tools that write, so a read-only tool states just that.
 */
function compactAnnotations(a: ToolAnnotationsSpec): Tool['annotations'] {
  if (a.readOnlyHint) return { readOnlyHint: true, ...(a.openWorldHint ? {} : { openWorldHint: false }) };
  return {
    ...(a.destructiveHint ? {} : { destructiveHint: false }),
    ...(a.idempotentHint ? { idempotentHint: true } : {}),
    ...(a.openWorldHint ? {} : { openWorldHint: false }),
  };
}

/** One listing: argument descriptions and long enums are written once across the tools of the list. */
function listing(panels: boolean): readonly Tool[] {
  const memory: ListingMemory = { described: new Set(), enums: new Map() };
  return ROUTERS.filter((d) => panels || !isPanelOnly(d)).map((d) => toolDefinition(d, { panels, memory }));
}

/**
 * tools/list derives from the const registry alone: built once per client kind, on the first listing
 * (not at import: CLI commands that never serve MCP do not pay for it).
 */
const listings: { panels?: readonly Tool[]; plain?: readonly Tool[] } = {};
function toolsFor(panels: boolean): readonly Tool[] {
  return panels ? (listings.panels ??= listing(true)) : (listings.plain ??= listing(false));
}

/** An action handler as the dispatcher calls it (the registry types are erased at this one dynamic boundary). */
type DynamicHandler = (args: unknown, ctx: ActionContext) => Promise<ActionOutput<unknown> | InputRequiredOutput>;

/** A tools/call whose caller, action and args passed every check: ready to run, here or as a task. */
interface CheckedCall {
  principal: Principal;
  def: ActionDef;
  handler: DynamicHandler;
  args: unknown;
}

/**
 * Authenticate the caller and check the action and its args (the action's own schema), before anything runs.
 * @throws ServiceError unauthenticated | invalid_argument (field named)
 */
async function checkCall(
  name: RouterName,
  input: Record<string, unknown>,
  routers: RouterImpls,
  resolvePrincipal: PrincipalResolver,
  extra: Extra,
): Promise<CheckedCall> {
  const principal = await resolvePrincipal(extra);
  // The one dynamic boundary: the action name arrives as a string and its args are parsed by the
  // action's own schema below, so the handler receives exactly the type `Handlers<R>` promised.
  const handlers = routers[name].handlers as unknown as Record<string, DynamicHandler>;
  const action = input.action;
  const allowed = Object.keys(handlers);
  if (typeof action !== 'string' || !allowed.includes(action)) {
    throw new ServiceError(
      'invalid_argument',
      'action',
      `must be one of: ${allowed.join(', ')}${typeof action === 'string' ? ` (got "${action}")` : ''}`,
      { details: { allowed } },
    );
  }
  const unknownKeys = Object.keys(input).filter((k) => k !== 'action' && k !== 'args');
  if (unknownKeys.length)
    throw new ServiceError(
      'invalid_argument',
      unknownKeys[0]!,
      `unknown field(s): ${unknownKeys.join(', ')}; put action parameters inside args`,
    );
  const def = findAction(name, action)!;
  const rawArgs = input.args ?? {};
  if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs))
    throw new ServiceError('invalid_argument', 'args', 'must be an object');
  const parsed = def.args.safeParse(rawArgs);
  if (!parsed.success) throw fromZodError(parsed.error);
  return { principal, def, handler: handlers[action]!, args: parsed.data };
}

/**
 * Run a checked call and map its output to the tool result: `structuredContent` validated against the
 * action's result schema plus the text; a `ServiceError` → `isError` result with `{code, field, message}`;
 * anything else → `internal` (logged with stack, generic message out).
 * @param note receives the outcome for the log line (`ok`, `input_required` or the error code)
 */
async function runCall(
  call: CheckedCall,
  ctx: ActionContext,
  log: Logger,
  note: (outcome: string) => void,
): Promise<CallToolResult | InputRequiredResult> {
  const { def } = call;
  try {
    const out = await call.handler(call.args, ctx);
    if ('inputRequired' in out) {
      note('input_required');
      return out.inputRequired;
    }
    const checked = def.result.safeParse(out.structuredContent);
    if (!checked.success) {
      log.error({ router: def.router, action: def.action, issues: checked.error.issues.slice(0, 5) }, 'result does not match its schema');
      throw new Error(`result of ${def.router}.${def.action} does not match its schema`);
    }
    note('ok');
    return {
      content: [...(out.content ?? []), { type: 'text', text: out.text }],
      structuredContent: out.structuredContent as Record<string, unknown>,
      ...(out._meta ? { _meta: out._meta } : {}),
    };
  } catch (e) {
    return errorResult(e, log, def.router, def.action, note);
  }
}

/** The tool result of an error: `ServiceError` → its payload; anything else → `internal` (logged). */
function errorResult(e: unknown, log: Logger, router: string, action: unknown, note: (outcome: string) => void): CallToolResult {
  if (e instanceof ServiceError) {
    note(e.code);
    return toErrorResult(e.toPayload());
  }
  note('internal');
  log.error({ err: e, router, action }, 'action failed');
  return toErrorResult({ code: 'internal', field: null, message: 'internal error; the request was not completed (see server log)' });
}

/**
 * Install tools/list and tools/call for the router tools on an McpServer. This is the only catch site:
 * `ServiceError` → `isError: true` result with `{code, field, message}`; anything else → `internal`
 * (logged with stack, generic message out). Unknown tools stay protocol errors (ProtocolError -32602).
 * With `tasks`, on a 2026-07-28 request whose client declared the Tasks extension, an action the registry
 * marks `taskSupport: 'optional'` answers a `CreateTaskResult` at once and runs in the background
 * (mcp/tasks.ts); its task then holds the very tool result the call would have returned.
 */
export function registerRouters(
  mcp: McpServer,
  routers: RouterImpls,
  resolvePrincipal: PrincipalResolver,
  log: Logger,
  inflight?: InflightCalls,
  era: ProtocolEra = 'legacy',
  tasks?: ToolTasks,
): void {
  const server = mcp.server;
  server.registerCapabilities({ tools: { listChanged: false } });

  // Panel-only tools are listed only to clients that declared MCP Apps; a call to one still works from
  // any client (it re-derives scope from the API key like every action).
  server.setRequestHandler('tools/list', async (_request, extra) => ({
    tools: [...toolsFor(clientRendersPanels(clientCapabilitiesOf(mcp, extra)))],
  }));

  server.setRequestHandler('tools/call', async (request, extra): Promise<CallToolResult | InputRequiredResult> => {
    const name = request.params.name;
    if (!isRouterName(name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    const started = performance.now();
    const input = request.params.arguments ?? {};
    const action = input.action;
    let principal: Principal | undefined;
    let outcome = 'ok';
    const note = (o: string): void => void (outcome = o);
    const settled = inflight?.begin();
    const logged = await withCallLog(async (): Promise<CallToolResult | InputRequiredResult> => {
      let call: CheckedCall;
      try {
        call = await checkCall(name, input, routers, resolvePrincipal, extra);
        principal = call.principal;
      } catch (e) {
        return errorResult(e, log, name, action, note);
      }
      const progressToken = extra.mcpReq._meta?.progressToken;
      const clientCapabilities = clientCapabilitiesOf(mcp, extra);
      const ctxWith = (signal: AbortSignal, progress: ActionContext['progress']): ActionContext => ({
        principal: call.principal,
        signal,
        sessionId: extra.sessionId,
        clientCapabilities,
        clientRendersPanels: clientRendersPanels(clientCapabilities),
        mcpContext: extra,
        era,
        log,
        progress,
      });
      if (tasks && era === 'modern' && call.def.taskSupport === 'optional' && clientDeclaresTasks(clientCapabilities)) {
        try {
          const task = await tasks.start(call.principal, name, call.def.action, (signal, report) =>
            runTask(
              call,
              ctxWith(signal, async (_p, _t, message) => report(message ?? '')),
              log,
            ),
          );
          note('task');
          // A CreateTaskResult in place of the CallToolResult (Tasks extension: `resultType: "task"`); the SDK
          // passes a non-`complete` resultType of tools/call through on revision 2026-07-28.
          return task as unknown as CallToolResult;
        } catch (e) {
          return errorResult(e, log, name, action, note);
        }
      }
      return runCall(
        call,
        ctxWith(extra.mcpReq.signal, async (progress, total, message) => {
          if (progressToken === undefined) return;
          await extra.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) },
          });
        }),
        log,
        note,
      );
    }).finally(() => settled?.());
    log.info(
      {
        router: name,
        action,
        duration_ms: Math.round(performance.now() - started),
        outcome,
        tenant_id: principal?.tenantId,
        ...logged.fields,
      },
      'tool call',
    );
    return logged.result;
  });
}

/** The background run of a call started as a task, with its own log line (the call's own line says `task`). */
async function runTask(call: CheckedCall, ctx: ActionContext, log: Logger): Promise<CallToolResult> {
  const started = performance.now();
  let outcome = 'ok';
  const logged = await withCallLog(() => runCall(call, ctx, log, (o) => void (outcome = o)));
  log.info(
    {
      router: call.def.router,
      action: call.def.action,
      duration_ms: Math.round(performance.now() - started),
      outcome,
      tenant_id: call.principal.tenantId,
      ...logged.fields,
    },
    'tool task call',
  );
  // a task never asks for input (no action that answers input_required is marked for tasks)
  return logged.result as CallToolResult;
}
