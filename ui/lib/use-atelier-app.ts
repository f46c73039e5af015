import type { App, McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { useApp } from '@modelcontextprotocol/ext-apps/react';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { useCallback, useEffect, useState } from 'react';
import type { ActionName, ArgsIn, ResultOf, RouterName } from '../../shared/actions.ts';
import { callAction } from './call-action.ts';
import { applyHostContext } from './host-theme.ts';

/** State of a panel's connection to its MCP Apps host. */
export interface AtelierApp {
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
  /** `callAction` bound to this panel's App (see `ui/lib/call-action.ts`). @throws ActionError */
  callAction<R extends RouterName, A extends ActionName<R>>(router: R, action: A, args: ArgsIn<R, A>): Promise<ResultOf<R, A>>;
}

/**
 * Connect a panel to its MCP Apps host (ext-apps `useApp`) with every handler registered before the
 * handshake: tool input/result/cancel, host-context changes (theme, style variables, fonts, safe-area
 * insets applied to the document), errors, and `onteardown` — always set, since a View without it
 * answers `ui/resource-teardown` with -32601 (research note §4.4 finding 1).
 * @param name panel name reported as `appInfo.name` (e.g. `atelier-asset-picker`)
 * @param onTeardown optional cleanup run before the host unmounts the panel
 */
export function useAtelierApp(name: string, onTeardown?: () => void | Promise<void>): AtelierApp {
  const [toolInput, setToolInput] = useState<Record<string, unknown> | null>(null);
  const [toolResult, setToolResult] = useState<CallToolResult | null>(null);
  const [cancelled, setCancelled] = useState<string | null>(null);
  const [hostContext, setHostContext] = useState<McpUiHostContext | undefined>(undefined);
  const { app, isConnected, error } = useApp({
    appInfo: { name, version: '0.1.0' },
    capabilities: {},
    onAppCreated: (created) => {
      created.ontoolinput = (p) => setToolInput((p.arguments ?? {}) as Record<string, unknown>);
      created.ontoolresult = (r) => setToolResult(r as CallToolResult);
      created.ontoolcancelled = (p) => setCancelled(p.reason ?? 'cancelled');
      created.onhostcontextchanged = (ctx) => {
        applyHostContext(ctx);
        setHostContext(created.getHostContext());
      };
      created.onteardown = async () => {
        await onTeardown?.();
        return {};
      };
      created.onerror = (e) => console.error('[atelier panel]', e);
    },
  });
  useEffect(() => {
    if (!app || !isConnected) return;
    const ctx = app.getHostContext();
    applyHostContext(ctx);
    setHostContext(ctx);
  }, [app, isConnected]);
  const bound = useCallback(
    <R extends RouterName, A extends ActionName<R>>(router: R, action: A, args: ArgsIn<R, A>): Promise<ResultOf<R, A>> => {
      if (!app) return Promise.reject(new Error('panel is not connected to its host yet'));
      return callAction(app, router, action, args);
    },
    [app],
  );
  return { app, connected: isConnected, error: error ?? null, toolInput, toolResult, cancelled, hostContext, callAction: bound };
}
