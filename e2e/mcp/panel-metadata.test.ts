/**
 * Panel metadata each host honours (issue 37 item 6), through an MCP client over the real Streamable HTTP listener,
 * reached at http://127.0.0.1:<port> as a TLS-terminating proxy would reach it: with ATELIER_PUBLIC_URL the panels'
 * `_meta.ui.csp` (and its ChatGPT mirror `openai/widgetCSP`) names the public origin and nothing else, `_meta.ui.domain`
 * is Claude's stable origin for the connector URL, asset URLs use the public origin, and the panel-only tools are
 * listed with `visibility: ["app"]`. ATELIER_CDN_URL moves assets (and the CSP) to another origin; without either,
 * the listener's own origin is named and no domain is asked for.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, wrapClient, type TestServer } from './harness.ts';

const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
/** Claude's documented example: the ui.domain of the connector https://example.com/mcp (Claude MCP Apps docs). */
const CLAUDE_DOMAIN_OF_EXAMPLE_COM = 'c3d80a4ed901ee05b21755a88273b4a4.claudemcpcontent.com';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** A server with `env`, its HTTP listener, and a client that declared MCP Apps, connected over HTTP with the tenant's key. */
async function connect(env: Record<string, string>): Promise<{ srv: TestServer; client: Client; origin: string }> {
  const srv = await startTestServer({ env });
  servers.push(srv);
  const http = await srv.listen();
  const client = new Client({ name: 'panel-metadata', version: '0' }, { capabilities: UI });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${srv.tenant.api_key}` } },
    }),
  );
  return { srv, client, origin: new URL(http.url).origin };
}

/** `_meta` of every ui:// resource, as listed and as read. */
async function panelMeta(client: Client): Promise<Record<string, unknown>[]> {
  const { resources } = await client.listResources();
  const panels = resources.filter((r) => r.uri.startsWith('ui://'));
  expect(panels.length).toBeGreaterThanOrEqual(3);
  const out: Record<string, unknown>[] = [];
  for (const p of panels) {
    out.push(p._meta ?? {});
    const read = await client.readResource({ uri: p.uri });
    out.push(read.contents[0]?._meta ?? {});
  }
  return out;
}

/** Every absolute URL's origin written anywhere in `value`. */
const originsIn = (value: unknown): string[] => [...new Set([...JSON.stringify(value).matchAll(/https?:\/\/[^"\s/]+/g)].map((m) => m[0]))];

/** Import a small PNG through MCP and return its URL. */
async function importedUrl(srv: TestServer): Promise<string> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const c = await srv.connect();
  const r = await c.call('svc_asset_import', 'import', { data: png.toString('base64'), mime_type: 'image/png', filename: 'swatch.png' });
  expect(r.isError).toBe(false);
  return r.structured.url as string;
}

describe('panel metadata and asset URLs', () => {
  it('behind a proxy (ATELIER_PUBLIC_URL): CSP and widgetCSP name the public origin only; ui.domain is Claude’s; assets use it', async () => {
    const { srv, client, origin } = await connect({ ATELIER_PUBLIC_URL: 'https://example.com/' });
    for (const meta of await panelMeta(client)) {
      expect(meta).toEqual({
        ui: {
          csp: { connectDomains: [], resourceDomains: ['https://example.com'] },
          domain: CLAUDE_DOMAIN_OF_EXAMPLE_COM,
          prefersBorder: true,
        },
        'openai/widgetCSP': { connect_domains: [], resource_domains: ['https://example.com'] },
      });
      // the listener's own address, where the proxy reaches it, is in no metadata
      expect(originsIn(meta)).toEqual(['https://example.com']);
      expect(JSON.stringify(meta)).not.toContain(origin);
    }
    const url = await importedUrl(srv);
    expect(url).toMatch(/^https:\/\/example\.com\/a\/[A-Za-z0-9_-]{22}\.png$/);

    // Panel-only tools stay listed to a client that renders panels, marked for the app only.
    const { tools } = await client.listTools();
    const appOnly = tools.filter(
      (t) => JSON.stringify((t._meta as { ui?: { visibility?: string[] } } | undefined)?.ui?.visibility) === '["app"]',
    );
    expect(appOnly.map((t) => t.name).sort()).toEqual(['svc_asset_panel', 'svc_asset_upload_app']);
    // and stay callable (some hosts refuse calls to tools they were not listed)
    const facets = await wrapClient(client).call('svc_asset_panel', 'facets', { workspace_id: srv.tenant.workspace_id });
    expect(facets.isError).toBe(false);
  });

  it('ATELIER_CDN_URL moves the asset origin: the CSP names it and not the public URL', async () => {
    const { srv, client } = await connect({ ATELIER_PUBLIC_URL: 'https://example.com', ATELIER_CDN_URL: 'https://cdn.example.net/assets' });
    for (const meta of await panelMeta(client)) {
      expect(meta).toMatchObject({
        ui: { csp: { connectDomains: [], resourceDomains: ['https://cdn.example.net'] }, domain: CLAUDE_DOMAIN_OF_EXAMPLE_COM },
        'openai/widgetCSP': { connect_domains: [], resource_domains: ['https://cdn.example.net'] },
      });
      expect(originsIn(meta)).toEqual(['https://cdn.example.net']);
    }
    expect(await importedUrl(srv)).toMatch(/^https:\/\/cdn\.example\.net\/assets\/a\//);
  });

  it('without a public URL: the listener’s origin, and no ui.domain; ATELIER_UI_DOMAIN sets or removes it', async () => {
    const plain = await connect({});
    for (const meta of await panelMeta(plain.client)) {
      expect(meta).toEqual({
        ui: { csp: { connectDomains: [], resourceDomains: [plain.origin] }, prefersBorder: true },
        'openai/widgetCSP': { connect_domains: [], resource_domains: [plain.origin] },
      });
    }
    expect(await importedUrl(plain.srv)).toMatch(new RegExp(`^${plain.origin.replace(/[.]/g, '\\.')}/a/`));

    const none = await connect({ ATELIER_PUBLIC_URL: 'https://example.com', ATELIER_UI_DOMAIN: 'none' });
    for (const meta of await panelMeta(none.client)) expect((meta.ui as Record<string, unknown>).domain).toBeUndefined();
    const own = await connect({ ATELIER_UI_DOMAIN: 'atelier-example-com.oaiusercontent.com' });
    for (const meta of await panelMeta(own.client))
      expect((meta.ui as Record<string, unknown>).domain).toBe('atelier-example-com.oaiusercontent.com');
  });
});
