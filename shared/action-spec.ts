import type { z } from 'zod';

/**
 * The shapes of the action registry's entries (shared/actions.ts `REGISTRY`): what one router tool and
 * one action declare. The registry re-exports these types.
 */

/** Who may call an action: the model, an MCP Apps panel, or both (MCP Apps `_meta.ui.visibility`). */
export type Visibility = readonly ('model' | 'app')[];

/** One action: zod args (validation + JSON Schema), result schema (`structuredContent`), former operation names. */
export interface ActionSpec {
  /** one line for the model: when to call, what comes back */
  description: string;
  args: z.ZodType;
  result: z.ZodType;
  formerNames: readonly string[];
  /**
   * `optional`: a long call (it waits on a remote provider) that a client declaring the MCP Tasks extension
   * gets as a task (`io.modelcontextprotocol/tasks`, revision 2026-07-28), polled to its result; every other
   * client, and every action without it, gets the result synchronously. The word is MCP's `taskSupport`.
   */
  taskSupport?: 'optional';
}

/** MCP tool annotations of a router tool. */
export interface ToolAnnotationsSpec {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One router tool: its MCP metadata, the MCP Apps panel it opens, and its actions keyed by name. */
export interface RouterSpec {
  title: string;
  /** for the model: when to call the tool and what comes back (plain words) */
  description: string;
  /** appended to `description` only for clients that render MCP Apps panels (what the panel does, whether to wait) */
  panelNote?: string;
  annotations: ToolAnnotationsSpec;
  /** `ui://` resource of the panel this tool renders in an MCP Apps host */
  resourceUri?: string;
  /** MCP Apps `_meta.ui.visibility`; `['app']` = panel-only (listed only to clients that declared MCP Apps) */
  visibility?: Visibility;
  actions: Record<string, ActionSpec>;
}
