import type { ClientCapabilities, ContentBlock, InputRequiredResult, ProtocolEra, ServerContext } from '@modelcontextprotocol/server';
import type { Principal } from '../domain/scope.ts';
import type { Logger } from '../log.ts';
import type { ActionName, ArgsOf, ResultOf, RouterName } from '../../shared/actions.ts';

/** Per-call context handed to every action handler by the dispatcher. */
export interface ActionContext {
  principal: Principal;
  /** aborted when the client cancels the request or the session closes (a call run as an MCP task: on `tasks/cancel`, or when the server stops) */
  signal: AbortSignal;
  /** MCP progress notification; a no-op when the client sent no progress token (a call run as an MCP task: its status message) */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** capabilities the client declared (elicitation, MCP Apps extension …): at initialize, or in this request's `_meta` (2026-07-28) */
  clientCapabilities: ClientCapabilities | undefined;
  /** the client declared MCP Apps (it renders panels): see server/mcp/apps.ts */
  clientRendersPanels: boolean;
  /** the SDK's context of this request (elicitation on a 2025-era connection, `input_required` state on 2026-07-28); a call run as an MCP task has answered its request already: send nothing through it */
  mcpContext: ServerContext;
  /** `modern` for a 2026-07-28 request (no session, no server-initiated requests), `legacy` for a 2025-era one */
  era: ProtocolEra;
  sessionId: string | undefined;
  log: Logger;
}

/**
 * What a handler returns: `structuredContent` (typed by the action's result schema and validated against
 * it again at run time) and a text summary complete enough for a model without panels.
 */
export interface ActionOutput<S = Record<string, unknown>> {
  structuredContent: S;
  text: string;
  /** extra content blocks placed before the text (e.g. the view image) */
  content?: ContentBlock[];
  _meta?: Record<string, unknown>;
}

/**
 * A 2026-07-28 multi-round-trip answer (`input_required`, SEP-2322): the client fulfils `inputRequests` (asks
 * the user) and calls again with the same arguments, its `inputResponses` and the `requestState` echoed.
 */
export interface InputRequiredOutput {
  inputRequired: InputRequiredResult;
}

/**
 * The handler of one action: parsed args in (zod output of its args schema), its result schema's type out
 * (or, on a 2026-07-28 request only, a request for input).
 */
export type Handler<R extends RouterName, A extends ActionName<R>> = (
  args: ArgsOf<R, A>,
  ctx: ActionContext,
) => Promise<ActionOutput<ResultOf<R, A>> | InputRequiredOutput>;

/** One handler per action of router `R`: a missing or misspelt action, or a wrong result shape, fails `tsc`. */
export type Handlers<R extends RouterName> = { [A in ActionName<R>]: Handler<R, A> };

/** A router tool's implementation. */
export interface RouterImpl<R extends RouterName> {
  name: R;
  handlers: Handlers<R>;
}

/** Every router of the registry, implemented: a router left out of the composition root fails `tsc`. */
export type RouterImpls = { [R in RouterName]: RouterImpl<R> };

/** Build a router implementation; `handlers` is checked against the registry entry of `name`. */
export function defineRouter<R extends RouterName>(name: R, handlers: Handlers<R>): RouterImpl<R> {
  return { name, handlers };
}
