import type { App, McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { useApp } from '@modelcontextprotocol/ext-apps/react';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { useCallback, useEffect, useReducer, useState } from 'react';
import type { ArgsIn, ResultOf } from '../../shared/actions.ts';
import type { ActionClient, ActionsIn, ResultSchemas, RoutersIn } from './call-action.ts';
import { applyHostContext } from './host-theme.ts';

/** State of a panel's connection to its MCP Apps host; `S`: the result schemas of the actions it may call. */
export interface AtelierApp<S extends ResultSchemas = ResultSchemas> {
  app: App | null;
  /** true once `ui/initialize` completed */
  connected: boolean;
  /** connection error (handshake failed, no host) */
  error: Error | null;
  /** arguments of the model-facing tool call this panel was opened for (`ui/notifications/tool-input`) */
  toolInput: Record<string, unknown> | null;
  /** result of that call (`ui/notifications/tool-result`), null while pending */
  toolResult: CallToolResult | null;
  /** set when the host cancelled the call (`tool-cancelled`) */
  cancelled: string | null;
  hostContext: McpUiHostContext | undefined;
  /** the panel's action client's `call` bound to its App (see `ui/lib/call-action.ts`). @throws ActionError */
  callAction: <R extends RoutersIn<S>, A extends ActionsIn<S, R>>(router: R, action: A, args: ArgsIn<R, A>) => Promise<ResultOf<R, A>>;
}

/**
 * Connect a panel to its MCP Apps host (ext-apps `useApp`) with every handler registered before the
 * handshake: tool input/result/cancel, host-context changes (theme, style variables, fonts, safe-area
 * insets applied to the document), errors, and `onteardown` — always set, since a View without it
 * answers `ui/resource-teardown` with -32601 (research note §4.4 finding 1).
 * @param name panel name reported as `appInfo.name` (e.g. `atelier-asset-picker`)
 * @param client the panel's typed action client (`actionClient`): the actions it may call
 * @param onTeardown optional cleanup run before the host unmounts the panel
 */
export function useAtelierApp<S extends ResultSchemas>(
  name: string,
  client: ActionClient<S>,
  onTeardown?: () => void | Promise<void>,
): AtelierApp<S> {
  const [toolInput, setToolInput] = useState<Record<string, unknown> | null>(null);
  const [toolResult, setToolResult] = useState<CallToolResult | null>(null);
  const [cancelled, setCancelled] = useState<string | null>(null);
  // The host context lives in the App (merged on each change); a change re-renders through this counter.
  const [, hostContextChanged] = useReducer((n: number) => n + 1, 0);
  const { app, isConnected, error } = useApp({
    appInfo: { name, version: '0.1.0' },
    capabilities: {},
    onAppCreated: (created) => {
      created.ontoolinput = (p) => setToolInput(p.arguments ?? {});
      created.ontoolresult = (r) => setToolResult(r);
      created.ontoolcancelled = (p) => setCancelled(p.reason ?? 'cancelled');
      created.onhostcontextchanged = (ctx) => {
        applyHostContext(ctx);
        hostContextChanged();
      };
      created.onteardown = async () => {
        await onTeardown?.();
        return {};
      };
      created.onerror = (e) => console.error('[atelier panel]', e);
    },
  });
  useEffect(() => {
    if (app && isConnected) applyHostContext(app.getHostContext());
  }, [app, isConnected]);
  const hostContext = app && isConnected ? app.getHostContext() : undefined;
  const bound = useCallback(
    <R extends RoutersIn<S>, A extends ActionsIn<S, R>>(router: R, action: A, args: ArgsIn<R, A>): Promise<ResultOf<R, A>> => {
      if (!app) return Promise.reject(new Error('panel is not connected to its host yet'));
      return client.call(app, router, action, args);
    },
    [app, client],
  );
  return { app, connected: isConnected, error: error ?? null, toolInput, toolResult, cancelled, hostContext, callAction: bound };
}
