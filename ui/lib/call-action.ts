import type { App } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { findAction, type ActionName, type ArgsIn, type ResultOf, type RouterName } from '../../shared/actions.ts';
import { ErrorSchema } from '../../shared/schemas/error.ts';

/** A structured error `{code, field, message}` returned by an action (`isError: true`), or a transport failure (`code: 'transport'`). */
export class ActionError extends Error {
  constructor(
    readonly code: string,
    readonly field: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'ActionError';
  }
}

/** The `structuredContent` type of an action whose result schema is `S`. */
export type ActionResult<S extends z.ZodType> = z.output<S>;

/**
 * Call one router action from a panel through the host (`tools/call` proxied by the MCP Apps host) and
 * parse its `structuredContent` with the action's result schema from `shared/actions.ts` — the same
 * schema the server validates against, so the panel never reads results out of text blocks.
 * Router, action, args and result are typed from the registry: `callAction(app, ROUTER.assetPanel, 'page', args)`
 * resolves to the `page` result type; a misspelt action or a wrong argument fails `tsc`.
 * @throws ActionError with the action's `{code, field, message}` when the result is `isError`, `code:
 *   'transport'` when the host or server could not be reached, `code: 'bad_result'` on a schema mismatch
 */
export async function callAction<R extends RouterName, A extends ActionName<R>>(
  app: App,
  router: R,
  action: A,
  args: ArgsIn<R, A>,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<ResultOf<R, A>> {
  const def = findAction(router, action);
  if (!def) throw new ActionError('unknown_action', 'action', `${router}.${action} is not in the action registry`);
  let result: CallToolResult;
  try {
    result = (await app.callServerTool(
      { name: router, arguments: { action, args: args as Record<string, unknown> } },
      { ...(options.signal ? { signal: options.signal } : {}), timeout: options.timeoutMs ?? 60_000 },
    )) as CallToolResult;
  } catch (e) {
    throw new ActionError('transport', null, e instanceof Error ? e.message : String(e));
  }
  if (result.isError) {
    const err = ErrorSchema.safeParse((result.structuredContent as { error?: unknown } | undefined)?.error);
    if (err.success) throw new ActionError(err.data.code, err.data.field ?? null, err.data.message);
    const text = result.content?.find((c) => c.type === 'text');
    throw new ActionError('error', null, text && 'text' in text ? text.text : `${router}.${action} failed`);
  }
  const parsed = def.result.safeParse(result.structuredContent);
  if (!parsed.success) throw new ActionError('bad_result', null, `${router}.${action} returned an unexpected result: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data as ResultOf<R, A>;
}

/** Parse a `ui/notifications/tool-result` payload (the model-facing call the panel was opened for) with the action's result schema; null when it is an error or does not match. */
export function parseToolResult<R extends RouterName, A extends ActionName<R>>(router: R, action: A, result: CallToolResult | undefined): ResultOf<R, A> | null {
  if (!result || result.isError) return null;
  const def = findAction(router, action);
  const parsed = def?.result.safeParse(result.structuredContent);
  return parsed?.success ? (parsed.data as ResultOf<R, A>) : null;
}
