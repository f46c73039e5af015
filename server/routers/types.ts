import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ClientCapabilities, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../domain/scope.ts';
import type { Logger } from '../log.ts';
import type { RouterName } from '../../shared/actions.ts';

/** Per-call context handed to every action handler by the dispatcher. */
export interface ActionContext {
  principal: Principal;
  /** aborted when the client cancels the request or the session closes */
  signal: AbortSignal;
  /** MCP progress notification; a no-op when the client sent no progress token */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** capabilities the client declared at initialize (elicitation, MCP Apps extension …) */
  clientCapabilities: ClientCapabilities | undefined;
  /** the low-level SDK server of this session (for elicitation) */
  server: Server;
  sessionId: string | undefined;
  log: Logger;
}

/** What a handler returns: `structuredContent` (validated against the action's result schema) and a text summary for models without panels. */
export interface ActionOutput {
  structuredContent: Record<string, unknown>;
  text: string;
  /** extra content blocks placed before the text (e.g. the view image) */
  content?: ContentBlock[];
  _meta?: Record<string, unknown>;
}

/** Args are already parsed by the action's zod schema when a handler runs. */
export type ActionHandler = (args: never, ctx: ActionContext) => Promise<ActionOutput>;

/** A router tool's implementation: one handler per registered action. */
export interface RouterImpl {
  name: RouterName;
  handlers: Record<string, (args: unknown, ctx: ActionContext) => Promise<ActionOutput>>;
}

/** Type a handler map against parsed args. */
export function handler<A>(fn: (args: A, ctx: ActionContext) => Promise<ActionOutput>): (args: unknown, ctx: ActionContext) => Promise<ActionOutput> {
  return fn as (args: unknown, ctx: ActionContext) => Promise<ActionOutput>;
}
