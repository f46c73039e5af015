import fs from 'node:fs';
import path from 'node:path';
import { test as base, expect, type FrameLocator, type Page } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, startTestServer, wrapClient, type TestClient, type TestServer } from '../mcp/harness.ts';
import { startHostServers, type HostServers } from './host-server.ts';

export { expect };

/** MCP Apps client capability: this host renders `text/html;profile=mcp-app` Views (SEP-1865). */
const UI_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'e2e', 'screenshots');

export interface HostEvent { type: string; params: unknown; at: number }

/** A panel opened in the test host for one model-facing tool call. */
export interface OpenPanel {
  /** the View's document (nested: host page → sandbox iframe → View iframe) */
  view: FrameLocator;
  /** the model-facing call's result, as the agent saw it */
  result: CallToolResult;
}

/**
 * The real server (temp SQLite + blob dir, real HTTP), an MCP SDK client over Streamable HTTP that
 * advertises MCP Apps support (what the host uses for the model's calls and to proxy the View's calls),
 * and the test host page on two same-site origins.
 */
export interface PanelHarness {
  server: TestServer;
  client: TestClient;
  hosts: HostServers;
  page: Page;
  /** Play the host's part of one tool call: read the `ui://` resource, start the call, mount the View, send tool-input then tool-result. */
  open(router: string, action: string, args: Record<string, unknown>, opts?: { theme?: 'light' | 'dark' }): Promise<OpenPanel>;
  /** Tear the View down and mount it again with the same tool input and result (hosts such as Claude create a new iframe per render). */
  remount(): Promise<OpenPanel>;
  events(type?: string): Promise<HostEvent[]>;
  setTheme(theme: 'light' | 'dark'): Promise<void>;
  setContext(partial: Record<string, unknown>): Promise<void>;
  screenshot(name: string): Promise<void>;
}

export const test = base.extend<{ atelier: PanelHarness }>({
  atelier: async ({ page }, use) => {
    const server = await startTestServer();
    const http = await server.listen();
    const sdk = new Client({ name: 'atelier-test-host', version: '0' }, { capabilities: UI_CAPABILITIES });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(http.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${server.tenant.api_key}` } } }));
    const client = wrapClient(sdk);
    const hosts = await startHostServers();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.exposeFunction('__callTool', (p: { name: string; arguments?: Record<string, unknown> }) => sdk.callTool(p));
    await page.exposeFunction('__readResource', (p: { uri: string }) => sdk.readResource(p));
    await page.goto(hosts.hostUrl);
    await expect(page.locator('#status')).toHaveText('test host ready');
    let tools: Tool[] | null = null;
    let last: { mount: Record<string, unknown>; input: Record<string, unknown>; result: CallToolResult } | null = null;
    const view = (): FrameLocator => page.frameLocator('#app-frame').frameLocator('iframe[name="mcp-app"]');

    const harness: PanelHarness = {
      server,
      client,
      hosts,
      page,
      async open(router, action, args, opts = {}) {
        tools ??= (await sdk.listTools()).tools;
        const tool = tools.find((t) => t.name === router);
        const uri = (tool?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
        if (!uri) throw new Error(`${router} declares no _meta.ui.resourceUri`);
        const resource = await sdk.readResource({ uri });
        const content = resource.contents[0] as { text?: string; mimeType?: string; _meta?: { ui?: { csp?: Record<string, string[]> } } };
        expect(content.mimeType).toBe('text/html;profile=mcp-app');
        const call = sdk.callTool({ name: router, arguments: { action, args } }) as Promise<CallToolResult>;
        const mount = {
          html: content.text ?? '',
          csp: content._meta?.ui?.csp ?? {},
          theme: opts.theme ?? 'light',
          tools: tools.map((t) => ({ name: t.name, ...((t._meta as { ui?: { visibility?: string[] } } | undefined)?.ui?.visibility ? { visibility: (t._meta as { ui: { visibility: string[] } }).ui.visibility } : {}) })),
          sandboxUrl: hosts.sandboxUrl,
        };
        await page.evaluate((o) => window.__host.mount(o), mount);
        await page.evaluate((a) => window.__host.toolInput(a), { action, args });
        const result = await call;
        await page.evaluate((r) => window.__host.toolResult(r), result as never);
        last = { mount, input: { action, args }, result };
        return { view: view(), result };
      },
      async remount() {
        if (!last) throw new Error('nothing mounted yet');
        const l = last;
        await page.evaluate(() => window.__host.teardown());
        await page.evaluate((o) => window.__host.mount(o), l.mount);
        await page.evaluate((a) => window.__host.toolInput(a), l.input);
        await page.evaluate((r) => window.__host.toolResult(r), l.result as never);
        return { view: view(), result: l.result };
      },
      async events(type) {
        const all = (await page.evaluate(() => window.__events)) as HostEvent[];
        return type ? all.filter((e) => e.type === type) : all;
      },
      async setTheme(theme) {
        await page.evaluate((t) => window.__host.setTheme(t), theme);
      },
      async setContext(partial) {
        await page.evaluate((c) => window.__host.setContext(c), partial);
      },
      async screenshot(name) {
        fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
        await page.locator('#app-frame').screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
      },
    };
    await use(harness);
    expect(errors, 'uncaught errors in the host page').toEqual([]);
    await sdk.close().catch(() => undefined);
    await hosts.close();
    await server.close();
  },
});

declare global {
  interface Window {
    __events: HostEvent[];
    __host: {
      mount(o: unknown): Promise<void>;
      toolInput(a: unknown): Promise<void>;
      toolResult(r: unknown): Promise<void>;
      setTheme(t: 'light' | 'dark'): Promise<void>;
      setContext(c: Record<string, unknown>): Promise<void>;
      teardown(): Promise<unknown>;
    };
  }
}
