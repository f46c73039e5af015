/**
 * Minimal MCP Apps host page for the Playwright panel tests (origin A). It renders one View through the
 * sandbox proxy (origin B, spec-default CSP header), speaks the host side of the protocol with the SDK's
 * `AppBridge`, records every View → host event in `window.__events`, enforces tool `visibility`
 * (a View may only call tools whose `_meta.ui.visibility` includes "app"), and forwards allowed
 * `tools/call` and `resources/read` to the real server through functions the test exposes
 * (`__callTool`, `__readResource`, backed by an MCP SDK client in the Node test process).
 * Recipe: research note mcp-apps.md §4.4; ext-apps examples/basic-host/src/implementation.ts.
 */
import { AppBridge, PostMessageTransport, type McpUiHostContext, type McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolRequest, CallToolResult, ReadResourceRequest, ReadResourceResult } from '@modelcontextprotocol/client';

export interface HostEvent {
  type: string;
  params: unknown;
  at: number;
}
export interface HostTool {
  name: string;
  visibility?: string[];
}
export interface MountOptions {
  html: string;
  csp?: McpUiResourceCsp;
  theme: 'light' | 'dark';
  tools: HostTool[];
  sandboxUrl: string;
  widthPx?: number;
  /** host context `containerDimensions` (default `{maxHeight: 4000}`); the iframe is clamped to it like a real host's */
  containerDimensions?: McpUiHostContext['containerDimensions'];
  /** leave `message` out of the host capabilities (a host that offers no `ui/message`) */
  noMessage?: boolean;
  /**
   * a host that never declared MCP Apps (so its tools/list has no panel-only tools) and does not
   * implement `_meta.ui.visibility`: it forwards a View's call to any tool name, listed or not
   */
  forwardUnlisted?: boolean;
}

declare global {
  interface Window {
    __events: HostEvent[];
    __callTool(params: CallToolRequest['params']): Promise<CallToolResult>;
    __readResource(params: ReadResourceRequest['params']): Promise<ReadResourceResult>;
    __host: HostApi;
  }
}

interface HostApi {
  mount(o: MountOptions): Promise<void>;
  toolInput(args: Record<string, unknown>): Promise<void>;
  toolResult(result: CallToolResult): Promise<void>;
  toolCancelled(reason: string): Promise<void>;
  setTheme(theme: 'light' | 'dark'): Promise<void>;
  /** Merge fields into the host context (e.g. safeAreaInsets) and notify the View of the change. */
  setContext(partial: Partial<McpUiHostContext>): Promise<void>;
  /** Set the iframe width (px) and the container dimensions the View is told about. */
  resize(widthPx: number, containerDimensions: McpUiHostContext['containerDimensions']): Promise<void>;
  teardown(): Promise<unknown>;
}

/** Host style variables per theme (a subset of the spec's standard keys, as a real host sends). */
const STYLES: Record<'light' | 'dark', Record<string, string>> = {
  light: {
    '--color-background-primary': '#ffffff',
    '--color-background-secondary': '#f4f4f5',
    '--color-background-tertiary': '#e4e4e7',
    '--color-text-primary': '#18181b',
    '--color-text-secondary': '#52525b',
    '--color-border-primary': '#d4d4d8',
    '--color-ring-primary': '#2563eb',
    '--color-background-info': '#dbeafe',
    '--color-background-inverse': '#18181b',
    '--color-text-inverse': '#fafafa',
    '--font-sans': 'system-ui, sans-serif',
    '--border-radius-md': '8px',
  },
  dark: {
    '--color-background-primary': '#18181b',
    '--color-background-secondary': '#27272a',
    '--color-background-tertiary': '#3f3f46',
    '--color-text-primary': '#fafafa',
    '--color-text-secondary': '#a1a1aa',
    '--color-border-primary': '#3f3f46',
    '--color-ring-primary': '#60a5fa',
    '--color-background-info': '#1e3a8a',
    '--color-background-inverse': '#fafafa',
    '--color-text-inverse': '#18181b',
    '--font-sans': 'system-ui, sans-serif',
    '--border-radius-md': '8px',
  },
};

function context(
  theme: 'light' | 'dark',
  containerDimensions: McpUiHostContext['containerDimensions'] = { maxHeight: 4000 },
): McpUiHostContext {
  return {
    theme,
    platform: 'web',
    locale: 'en-US',
    displayMode: 'inline',
    availableDisplayModes: ['inline', 'fullscreen'],
    containerDimensions,
    safeAreaInsets: { top: 0, right: 0, bottom: 0, left: 0 },
    styles: { variables: STYLES[theme] } as McpUiHostContext['styles'],
  };
}

window.__events = [];
const record = (type: string, params: unknown): void => {
  window.__events.push({ type, params: JSON.parse(JSON.stringify(params ?? null)) as unknown, at: Date.now() });
};

let bridge: AppBridge | null = null;
let iframe: HTMLIFrameElement | null = null;
let tools: HostTool[] = [];
let forwardUnlisted = false;
let current: McpUiHostContext = context('light');
let lastHeight = 200;

/** Height the iframe gets for a View reporting `height` px: fixed by the host, or the View's own height clamped to maxHeight (spec "Container Dimensions"). */
function frameHeight(h: number): number {
  const d = current.containerDimensions;
  if (d && 'height' in d) return d.height;
  const max = d && 'maxHeight' in d && typeof d.maxHeight === 'number' ? d.maxHeight : Infinity;
  return Math.min(Math.ceil(h), max);
}

window.__host = {
  async mount(o) {
    tools = o.tools;
    forwardUnlisted = o.forwardUnlisted ?? false;
    document.body.classList.toggle('dark', o.theme === 'dark');
    iframe = document.createElement('iframe');
    iframe.id = 'app-frame';
    iframe.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
    iframe.style.width = `${o.widthPx ?? 760}px`;
    iframe.style.height = '200px';
    lastHeight = 200;
    iframe.src = `${o.sandboxUrl}?csp=${encodeURIComponent(JSON.stringify(o.csp ?? {}))}`;
    const frame = iframe;
    const proxyReady = new Promise<void>((resolve) => {
      const onMessage = (e: MessageEvent): void => {
        if (e.source === frame.contentWindow && (e.data as { method?: string } | null)?.method === 'ui/notifications/sandbox-proxy-ready') {
          window.removeEventListener('message', onMessage);
          resolve();
        }
      };
      window.addEventListener('message', onMessage);
    });
    document.body.appendChild(frame);
    await proxyReady;
    record('sandbox-proxy-ready', {});

    const b = new AppBridge(
      null,
      { name: 'atelier-test-host', version: '0.0.0' },
      {
        openLinks: {},
        serverTools: {},
        serverResources: {},
        logging: {},
        updateModelContext: { text: {}, structuredContent: {} },
        ...(o.noMessage ? {} : { message: { text: {} } }),
      },
      { hostContext: (current = context(o.theme, o.containerDimensions)) },
    );
    bridge = b;
    const initialized = new Promise<void>((resolve) => {
      b.oninitialized = () => {
        record('initialized', {});
        resolve();
      };
    });
    b.onsizechange = (p) => {
      record('size-changed', p);
      if (p.height !== undefined) {
        lastHeight = p.height;
        frame.style.height = `${frameHeight(p.height) + 2}px`;
      }
    };
    b.onmessage = async (p) => {
      record('ui/message', p);
      return {};
    };
    b.onupdatemodelcontext = async (p) => {
      record('ui/update-model-context', p);
      return {};
    };
    b.onopenlink = async (p) => {
      record('ui/open-link', p);
      return {};
    };
    b.onloggingmessage = (p) => record('notifications/message', p);
    b.onrequestdisplaymode = async (p) => {
      record('ui/request-display-mode', p);
      return { mode: 'inline' };
    };
    b.oncalltool = async (p) => {
      const tool = tools.find((t) => t.name === p.name);
      const visibility = tool?.visibility ?? ['model', 'app'];
      if ((!tool && !forwardUnlisted) || !visibility.includes('app')) {
        record('tools/call-rejected', p);
        throw new Error(`tool ${p.name} is not callable by apps (visibility ${JSON.stringify(visibility)})`);
      }
      record('tools/call', p);
      const result = await window.__callTool({ name: p.name, arguments: p.arguments ?? {} });
      record('tools/call-result', { name: p.name, isError: result.isError === true, structuredContent: result.structuredContent ?? null });
      return result;
    };
    b.onreadresource = async (p) => {
      record('resources/read', p);
      return window.__readResource(p);
    };
    await b.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
    await b.sendSandboxResourceReady({ html: o.html, ...(o.csp ? { csp: o.csp } : {}) });
    await initialized;
  },
  async toolInput(args) {
    await bridge!.sendToolInput({ arguments: args });
  },
  async toolResult(result) {
    await bridge!.sendToolResult(result);
  },
  async toolCancelled(reason) {
    await bridge!.sendToolCancelled({ reason });
  },
  async setTheme(theme) {
    document.body.classList.toggle('dark', theme === 'dark');
    current = { ...current, ...context(theme, current.containerDimensions), safeAreaInsets: current.safeAreaInsets };
    bridge!.setHostContext(current);
  },
  async setContext(partial) {
    current = { ...current, ...partial };
    bridge!.setHostContext(current);
  },
  async resize(widthPx, containerDimensions) {
    if (iframe) iframe.style.width = `${widthPx}px`;
    current = { ...current, containerDimensions };
    if (iframe) iframe.style.height = `${frameHeight(lastHeight) + 2}px`;
    bridge!.setHostContext(current);
  },
  async teardown() {
    const r = await bridge!.teardownResource({});
    record('teardown', r);
    iframe?.remove();
    return r;
  },
};
document.getElementById('status')!.textContent = 'test host ready';
