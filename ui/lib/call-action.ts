import type { App } from '@modelcontextprotocol/ext-apps';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { z } from 'zod';
import type { ActionName, ArgsIn, ResultOf } from '../../shared/actions.ts';
import type { RouterName } from '../../shared/routers.ts';
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

/**
 * The result schemas a panel parses, router → action → schema. Each must be the registry's own result
 * schema for that action (`shared/actions.ts`; the type requires the same output type, and
 * `call-action.test.ts` checks identity). Only these schemas are bundled into the panel: the registry
 * itself (every router's args and result schemas, descriptions) is imported for its types only.
 */
export type ResultSchemas = { readonly [R in RouterName]?: { readonly [A in ActionName<R>]?: z.ZodType<ResultOf<R, A>> } };
/** Routers of a schema map. */
export type RoutersIn<S extends ResultSchemas> = keyof S & RouterName;
/** Actions of router `R` in a schema map. */
export type ActionsIn<S extends ResultSchemas, R extends RoutersIn<S>> = Extract<keyof NonNullable<S[R]>, ActionName<R>>;

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A panel's typed access to the actions it uses (see `actionClient`). */
export interface ActionClient<S extends ResultSchemas> {
  /** router → action → result schema, as given */
  readonly schemas: S;
  /**
   * Call one router action through the host (`tools/call` proxied by the MCP Apps host) and parse its
   * `structuredContent` with the action's result schema — the schema the server validates against, so
   * the panel never reads results out of text blocks. Router, action, args and result are typed from
   * the registry; an action the panel did not declare, a misspelt action or a wrong argument fails `tsc`.
   * @throws ActionError with the action's `{code, field, message}` when the result is `isError`, `code:
   *   'transport'` when the host or server could not be reached, `code: 'bad_result'` on a schema mismatch
   */
  call<R extends RoutersIn<S>, A extends ActionsIn<S, R>>(
    app: App,
    router: R,
    action: A,
    args: ArgsIn<R, A>,
    options?: CallOptions,
  ): Promise<ResultOf<R, A>>;
  /** Parse a `ui/notifications/tool-result` payload (the model-facing call the panel was opened for); null when it is an error or does not match. */
  parse<R extends RoutersIn<S>, A extends ActionsIn<S, R>>(
    router: R,
    action: A,
    result: CallToolResult | null | undefined,
  ): ResultOf<R, A> | null;
}

/**
 * A typed action client over the result schemas a panel needs, e.g.
 * `actionClient({ [ROUTER.assetLibrary]: { search: AssetPageSchema } })`. Keeping the registry out of
 * the panel's bundle saves the schemas of every other router (issue 13 Done-when 3: < 600 KB).
 */
export function actionClient<const S extends ResultSchemas>(schemas: S): ActionClient<S> {
  const schemaOf = (router: string, action: string): z.ZodType | undefined =>
    (schemas as Record<string, Record<string, z.ZodType> | undefined>)[router]?.[action];
  return {
    schemas,
    async call(app, router, action, args, options = {}) {
      const schema = schemaOf(router, action);
      if (!schema) throw new ActionError('unknown_action', 'action', `${router}.${action} is not among this panel's actions`);
      let result: CallToolResult;
      try {
        result = await app.callServerTool(
          { name: router, arguments: { action, args: args as Record<string, unknown> } },
          { ...(options.signal ? { signal: options.signal } : {}), timeout: options.timeoutMs ?? 60_000 },
        );
      } catch (e) {
        throw new ActionError('transport', null, e instanceof Error ? e.message : String(e));
      }
      if (result.isError) {
        const err = ErrorSchema.safeParse((result.structuredContent as { error?: unknown } | undefined)?.error);
        if (err.success) throw new ActionError(err.data.code, err.data.field ?? null, err.data.message);
        const text = result.content?.find((c) => c.type === 'text');
        throw new ActionError('error', null, text && 'text' in text ? text.text : `${router}.${action} failed`);
      }
      const parsed = schema.safeParse(result.structuredContent);
      if (!parsed.success)
        throw new ActionError(
          'bad_result',
          null,
          `${router}.${action} returned an unexpected result: ${parsed.error.issues[0]?.message ?? ''}`,
        );
      return parsed.data as ResultOf<typeof router, typeof action>;
    },
    parse(router, action, result) {
      if (!result || result.isError) return null;
      const parsed = schemaOf(router, action)?.safeParse(result.structuredContent);
      return parsed?.success ? (parsed.data as ResultOf<typeof router, typeof action>) : null;
    },
  };
}
