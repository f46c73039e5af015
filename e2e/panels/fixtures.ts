import fs from 'node:fs';
import path from 'node:path';
import { test as base, expect, type FrameLocator, type Page } from '@playwright/test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { createLogger } from '../../server/log.ts';
import { startHttp, type HttpHandle } from '../../server/mcp/http.ts';
import { createTenant, type TenantBundle } from '../../server/tenancy/admin.ts';
import { REPO_ROOT, startTestServer, wrapClient, type TestClient, type TestServer } from '../mcp/harness.ts';
import { startHostServers, type HostServers } from './host-server.ts';
import { importNature, seedRows } from './seed.ts';

export { expect };

/** MCP Apps client capability: this host renders `text/html;profile=mcp-app` Views (SEP-1865). */
const UI_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'e2e', 'screenshots');
/**
 * Whether `atelier.screenshot(s)` write PNGs (`ATELIER_SCREENSHOTS=1`, `npm run screenshots`). Off in `npm test`:
 * the pictures are for people reviewing the panels (e2e/panels/SCREENSHOTS.md), they assert nothing, and the
 * 4 renders per state (2 widths × 2 themes, each waiting for the layout to settle) took about a third of the run.
 */
export const SCREENSHOTS_ON = process.env.ATELIER_SCREENSHOTS === '1';
/** Widths the issue asks screenshots at: a chat column and a wide window, px. */
export const SCREENSHOT_WIDTHS = [420, 1200] as const;
/** Height limit a chat host gives an inline View in the screenshots, px. */
export const CHAT_MAX_HEIGHT_PX = 900;

export interface HostEvent {
  type: string;
  params: unknown;
  at: number;
}

/** A panel opened in the test host for one model-facing tool call. */
export interface OpenPanel {
  /** the View's document (nested: host page → sandbox iframe → View iframe) */
  view: FrameLocator;
  /** the model-facing call's result, as the agent saw it (undefined while held) */
  result: CallToolResult;
}

export interface OpenOptions {
  theme?: 'light' | 'dark';
  widthPx?: number;
  containerDimensions?: Record<string, number>;
  /** the host offers no `ui/message` */
  noMessage?: boolean;
  /** the host's MCP client does not declare the MCP Apps extension (the server then answers as for a text client) */
  noUiExtension?: boolean;
  /** mount the View and send tool-input, but hold the tool result until `release()` */
  holdResult?: boolean;
}

/**
 * The real server (temp SQLite + blob dir, real HTTP), an MCP SDK client over Streamable HTTP that
 * advertises MCP Apps support (what the host uses for the model's calls and to proxy the View's calls),
 * and the test host page on two same-site origins. Like a real host, the client starts a new session
 * after the server answers 404 "unknown or expired session" (MCP Streamable HTTP: a client MUST
 * re-initialize on 404); the failing call still fails, so the View sees it.
 */
export interface PanelHarness {
  server: TestServer;
  /** this test's tenant (its own workspace, theme and API key) */
  tenant: TenantBundle;
  client: TestClient;
  hosts: HostServers;
  page: Page;
  /** the server's MCP endpoint, `http://127.0.0.1:<port>/mcp` */
  mcpUrl: string;
  /** Play the host's part of one tool call: read the `ui://` resource, start the call, mount the View, send tool-input then tool-result. */
  open(
    router: string,
    action: string,
    args: Record<string, unknown>,
    opts?: OpenOptions,
  ): Promise<OpenPanel & { release(): Promise<CallToolResult> }>;
  /** Tear the View down and mount it again with the same tool input and result (hosts such as Claude create a new iframe per render). */
  remount(): Promise<OpenPanel>;
  events(type?: string): Promise<HostEvent[]>;
  setTheme(theme: 'light' | 'dark'): Promise<void>;
  setContext(partial: Record<string, unknown>): Promise<void>;
  /** From now on the host connects with this bearer credential (an OAuth access token) instead of the tenant's API key. */
  authorize(bearer: string): Promise<void>;
  /** Stop the HTTP listener (the server is down: calls fail with "fetch failed"). */
  stopServer(): Promise<void>;
  /** Start it again on the same port; its sessions are gone (the next call of an old session gets 404). */
  startServer(): Promise<void>;
  screenshot(name: string): Promise<void>;
  /** Screenshots of the panel as it is now at 420 px and 1200 px, light and dark: `<name>-<width>-<theme>.png`; restores width and theme. */
  screenshots(name: string): Promise<void>;
}

interface Backend {
  server: TestServer;
  http: HttpHandle;
  port: number;
  hosts: HostServers;
  up: boolean;
  library: Promise<TenantBundle> | null;
}

/**
 * The shared read-only library of a worker's server (`test.use({ library: true })`): the 8 nature
 * photos imported through the public action, plus seeded rows cloned from them — `deck-*` (64),
 * `harbour-*` (14), `pier-*` (22), `quay-*` (52) and one `a-very-long-descriptive-file-name-…` — so
 * state tests share one seed instead of importing per test. 161 assets in all.
 */
export const SHARED_LIBRARY = {
  total: 161,
  nature: 8,
  rows: { deck: 64, harbour: 14, pier: 22, quay: 52, 'a-very-long-descriptive-file-name-for-the-hero-image': 1 },
} as const;

async function seedLibrary(server: TestServer): Promise<TenantBundle> {
  const t = await createTenant(server.app.library.tenancy, 'shared panel library');
  const c = await server.connect(t.api_key);
  const nature = await importNature(c, t.workspace_id);
  for (const [prefix, n] of Object.entries(SHARED_LIBRARY.rows))
    await seedRows(server.app, { tenantId: t.tenant_id, workspaceId: t.workspace_id }, n, { prefix, templateIds: nature.map((x) => x.id) });
  await c.close();
  return t;
}

async function startBackend(env: Record<string, string> = {}): Promise<Backend> {
  const server = await startTestServer({ env });
  const http = await startHttp(server.app, createLogger('silent'), { host: '127.0.0.1', port: 0, mcp: true });
  const port = Number(new URL(http.url).port);
  return { server, http, port, hosts: await startHostServers(), up: true, library: null };
}

async function stopBackend(b: Backend): Promise<void> {
  if (b.up) await b.http.close();
  await b.hosts.close();
  await b.server.close();
}

const SESSION_GONE = /unknown or expired session|\b404\b/i;

/**
 * The host's own requests (tools/list, resources/read, the model's tool call) retried once when a
 * kept-alive socket was reset: the server shares this process, so a test that blocks the event loop
 * (seeding 10,000 rows) can leave the client a socket the server already closed. A real host retries
 * such a reset too. The View's proxied calls are never retried here: the panel must see their failures.
 */
async function hostRequest<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!/ECONNRESET|socket hang up/i.test(`${(e as Error)?.message} ${String((e as { cause?: unknown })?.cause)}`)) throw e;
    return fn();
  }
}

export const test = base.extend<
  { atelier: PanelHarness; isolated: boolean; library: boolean; serverEnv: Record<string, string> },
  { shared: { get(): Promise<Backend>; backend: Backend | null } }
>({
  /** Per test: a server of its own (default). `test.use({ isolated: false })`: the worker's shared server, a fresh tenant per test. */
  isolated: [true, { option: true }],
  /** With `isolated: false`: use the worker's seeded tenant (`SHARED_LIBRARY`, read-only by convention) instead of a fresh empty one. */
  library: [false, { option: true }],
  /** Environment of a test's own server (`isolated: true`), e.g. `{ ATELIER_ENRICHMENT: '0' }` where the panel needs no enrichment. */
  serverEnv: [{}, { option: true }],
  shared: [
    async ({}, use) => {
      const holder: { get(): Promise<Backend>; backend: Backend | null } = {
        backend: null,
        async get() {
          // Enrichment (vectors, colours, alt text) is off: these tests look at panels, and a queue of
          // every earlier test's imports would compete for the 2 cores.
          holder.backend ??= await startBackend({ ATELIER_ENRICHMENT: '0' });
          return holder.backend;
        },
      };
      await use(holder);
      if (holder.backend) await stopBackend(holder.backend);
    },
    { scope: 'worker' },
  ],
  atelier: async ({ page, isolated, library, serverEnv, shared }, use, testInfo) => {
    const backend = isolated ? await startBackend(serverEnv) : await shared.get();
    if (!backend.up) throw new Error('shared server left stopped by an earlier test');
    const { server, hosts } = backend;
    if (!isolated && library) backend.library ??= seedLibrary(server);
    const tenant = isolated
      ? server.tenant
      : library
        ? await backend.library!
        : await createTenant(server.app.library.tenancy, `panel test ${testInfo.title}`);
    const mcpUrl = (): URL => new URL(`http://127.0.0.1:${backend.port}/mcp`);
    let credential = tenant.api_key;
    const connect = async (ui: boolean): Promise<Client> => {
      const c = new Client({ name: 'atelier-test-host', version: '0' }, { capabilities: ui ? UI_CAPABILITIES : {} });
      await c.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } }));
      return c;
    };
    let ui = true;
    let sdk = await connect(ui);
    // The test's own client follows the host's current session (it is the same MCP connection).
    const client: TestClient = {
      get client() {
        return sdk;
      },
      call: (router, action, args) => wrapClient(sdk).call(router, action, args),
      close: () => sdk.close(),
    };
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const callTool = async (p: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult> => {
      try {
        return await sdk.callTool(p);
      } catch (e) {
        // A real host starts a new session when the server forgot the old one (restart); this call still fails.
        if (SESSION_GONE.test(String((e as Error)?.message))) sdk = await connect(ui).catch(() => sdk);
        throw e;
      }
    };
    await page.exposeFunction('__callTool', callTool);
    await page.exposeFunction('__readResource', (p: { uri: string }) => sdk.readResource(p));
    await page.goto(hosts.hostUrl);
    await expect(page.locator('#status')).toHaveText('test host ready');
    let tools: Tool[] | null = null;
    let last: { mount: Record<string, unknown>; input: Record<string, unknown>; result: CallToolResult } | null = null;
    let theme: 'light' | 'dark' = 'light';
    let mounted = false;
    let widthPx = 760;
    let dims: Record<string, number> = { maxHeight: 4000 };
    const view = (): FrameLocator => page.frameLocator('#app-frame').frameLocator('iframe[name="mcp-app"]');
    const shotPath = (name: string): string => {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
      return path.join(SCREENSHOT_DIR, `${name}.png`);
    };
    /** Wait until the View's layout and previews settle: images decoded and the iframe height unchanged between polls. */
    const settle = async (): Promise<void> => {
      const frame = page.frame({ name: 'mcp-app' });
      let prev = '';
      await expect
        .poll(
          async () => {
            const h = await page.locator('#app-frame').evaluate((f) => (f as HTMLIFrameElement).style.height);
            const imgs = frame ? await frame.evaluate(() => [...document.images].every((i) => i.complete)).catch(() => true) : true;
            const same = imgs && h === prev;
            prev = h;
            return same;
          },
          { intervals: [150, 150, 250, 250, 500] },
        )
        .toBe(true);
    };

    const harness: PanelHarness = {
      server,
      tenant,
      client,
      hosts,
      page,
      mcpUrl: mcpUrl().href,
      async open(router, action, args, opts = {}) {
        if ((opts.noUiExtension ?? false) === ui) {
          ui = !opts.noUiExtension;
          await sdk.close().catch(() => undefined);
          sdk = await connect(ui);
          tools = null;
        }
        tools ??= (await hostRequest(() => sdk.listTools())).tools;
        const tool = tools.find((t) => t.name === router);
        const uri = (tool?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
        if (!uri) throw new Error(`${router} declares no _meta.ui.resourceUri`);
        const resource = await hostRequest(() => sdk.readResource({ uri }));
        const content = resource.contents[0] as { text?: string; mimeType?: string; _meta?: { ui?: { csp?: Record<string, string[]> } } };
        expect(content.mimeType).toBe('text/html;profile=mcp-app');
        const call = hostRequest(() => sdk.callTool({ name: router, arguments: { action, args } }));
        theme = opts.theme ?? 'light';
        widthPx = opts.widthPx ?? 760;
        dims = opts.containerDimensions ?? { maxHeight: 4000 };
        const mount = {
          html: content.text ?? '',
          csp: content._meta?.ui?.csp ?? {},
          theme,
          widthPx,
          containerDimensions: dims,
          noMessage: opts.noMessage ?? false,
          forwardUnlisted: !ui,
          tools: tools.map((t) => ({
            name: t.name,
            ...((t._meta as { ui?: { visibility?: string[] } } | undefined)?.ui?.visibility
              ? { visibility: (t._meta as { ui: { visibility: string[] } }).ui.visibility }
              : {}),
          })),
          sandboxUrl: hosts.sandboxUrl,
        };
        if (mounted) await page.evaluate(() => window.__host.teardown()); // one View at a time, like a host replacing it
        await page.evaluate((o) => window.__host.mount(o), mount);
        mounted = true;
        await page.evaluate((a) => window.__host.toolInput(a), { action, args });
        const release = async (): Promise<CallToolResult> => {
          const result = await call;
          await page.evaluate((r) => window.__host.toolResult(r), result as never);
          last = { mount, input: { action, args }, result };
          return result;
        };
        if (opts.holdResult) return { view: view(), result: undefined as unknown as CallToolResult, release };
        const result = await release();
        return { view: view(), result, release: async () => result };
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
        const all = await page.evaluate<HostEvent[]>(() => window.__events);
        return type ? all.filter((e) => e.type === type) : all;
      },
      async setTheme(t) {
        theme = t;
        await page.evaluate((x) => window.__host.setTheme(x), t);
      },
      async setContext(partial) {
        await page.evaluate((c) => window.__host.setContext(c), partial);
      },
      async authorize(bearer) {
        credential = bearer;
        await sdk.close().catch(() => undefined);
        sdk = await connect(ui);
        tools = null;
      },
      async stopServer() {
        if (!backend.up) return;
        await backend.http.close();
        backend.up = false;
      },
      async startServer() {
        if (backend.up) return;
        backend.http = await startHttp(server.app, createLogger('silent'), { host: '127.0.0.1', port: backend.port, mcp: true });
        backend.up = true;
      },
      async screenshot(name) {
        if (!SCREENSHOTS_ON) return;
        await page.locator('#app-frame').screenshot({ path: shotPath(name) });
      },
      async screenshots(name) {
        if (!SCREENSHOTS_ON) return;
        const [w0, t0, d0] = [widthPx, theme, dims];
        for (const w of SCREENSHOT_WIDTHS) {
          await page.setViewportSize({ width: w + 60, height: 1000 });
          await page.evaluate(([px, d]) => window.__host.resize(px, d), [w, { maxHeight: CHAT_MAX_HEIGHT_PX }] as const);
          for (const t of ['light', 'dark'] as const) {
            await page.evaluate((x) => window.__host.setTheme(x), t);
            await expect(view().locator('html')).toHaveAttribute('data-theme', t);
            await settle();
            await page.locator('#app-frame').screenshot({ path: shotPath(`${name}-${w}-${t}`) });
          }
        }
        await page.setViewportSize({ width: 820, height: 900 });
        await page.evaluate(([px, d]) => window.__host.resize(px, d), [w0, d0] as const);
        await page.evaluate((x) => window.__host.setTheme(x), t0);
        await expect(view().locator('html')).toHaveAttribute('data-theme', t0);
      },
    };
    try {
      await use(harness);
    } finally {
      if (!isolated) await harness.startServer().catch(() => undefined);
      await sdk.close().catch(() => undefined);
      if (isolated) await stopBackend(backend);
    }
    expect(errors, 'uncaught errors in the host page').toEqual([]);
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
      resize(widthPx: number, containerDimensions: Record<string, number>): Promise<void>;
      teardown(): Promise<unknown>;
    };
  }
}
