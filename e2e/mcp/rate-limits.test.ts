import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../server/app.ts';
import { createLogger } from '../../server/log.ts';
import { createApiKey, createTenant } from '../../server/tenancy/admin.ts';
import { connectApp, demoFile, startTestServer, type CallResult, type TestClient, type TestServer } from './harness.ts';
import { APP, sha256 } from './upload-helpers.ts';

const LIMITS = {
  ATELIER_ENRICHMENT: '0',
  ATELIER_RATE_CHEAP_PER_KEY: '5',
  ATELIER_RATE_CHEAP_PER_TENANT: '8',
  ATELIER_RATE_COSTLY_PER_KEY: '2',
  ATELIER_RATE_COSTLY_PER_TENANT: '3',
  ATELIER_RATE_REQUESTS_PER_KEY: '4',
};

const fir = demoFile('images/nature/silver_fir.jpg');
/** a costly call that decodes nothing: an upload session is declared */
const begin = (c: TestClient, name: string): Promise<CallResult> =>
  c.call(APP, 'begin', { filename: name, size_bytes: fir.length, sha256: sha256(fir) });

const expectLimited = (r: CallResult, scope: string, costClass: string, limit: number): void => {
  expect(r.error).toMatchObject({
    code: 'rate_limited',
    field: null,
    details: { scope, cost_class: costClass, limit, window_ms: 60_000 },
  });
  const d = r.error!.details as { retry_after_ms: number; retry_after_s: number };
  expect(d.retry_after_ms).toBeGreaterThan(0);
  expect(d.retry_after_ms).toBeLessThanOrEqual(60_000);
  expect(d.retry_after_s).toBe(Math.ceil(d.retry_after_ms / 1000));
};

/** Issue 36 finding 5: per-key and per-tenant limits by cost class, counted in the configured database. */
describe('rate limits per API key and per tenant', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: LIMITS });
  });
  afterAll(async () => srv.close());

  it('a noisy key over its costly limit gets rate_limited with a retry hint; another tenant is unaffected', async () => {
    const noisy = await srv.connect();
    const other = await createTenant(srv.app.library.tenancy, 'Quiet tenant');
    const quiet = await srv.connect(other.api_key);
    for (let i = 0; i < 2; i++) expect((await begin(noisy, `n${i}.jpg`)).error).toBeUndefined();
    const over = await begin(noisy, 'n2.jpg');
    expectLimited(over, 'api_key', 'costly', 2);
    // an import is costly too: refused before it decodes anything
    const imp = await noisy.call('svc_asset_import', 'import', {
      data: fir.toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'f.jpg',
    });
    expectLimited(imp, 'api_key', 'costly', 2);
    // cheap calls have a budget of their own
    expect((await noisy.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, query: 'fir' })).error).toBeUndefined();
    // another tenant's key is served, costly and cheap
    const done = await quiet.call('svc_asset_import', 'import', {
      data: fir.toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'q.jpg',
    });
    expect(done.error).toBeUndefined();
    expect((await quiet.call('svc_asset_library', 'search', { theme_id: other.theme_id, query: 'fir' })).error).toBeUndefined();
    // a second key of the noisy tenant has a key budget of its own but shares the tenant's (3): one more, then refused
    const key2 = await createApiKey(srv.app.library.tenancy, srv.tenant.tenant_id);
    const second = await srv.connect(key2.api_key);
    expect((await begin(second, 's0.jpg')).error).toBeUndefined();
    expectLimited(await begin(second, 's1.jpg'), 'tenant', 'costly', 3);
  });

  it('cheap calls past the key limit are refused; the counters are shared by a second process on the database', async () => {
    const t = await createTenant(srv.app.library.tenancy, 'Reader');
    const c = await srv.connect(t.api_key);
    const search = (x: TestClient) => x.call('svc_asset_library', 'search', { theme_id: t.theme_id, query: 'fir' });
    for (let i = 0; i < 3; i++) expect((await search(c)).error).toBeUndefined();
    // a second App on the same data dir and database, as a second server process would be
    let app2: App | null = null;
    try {
      app2 = await buildApp(srv.config, createLogger('silent'));
      const c2 = await connectApp(app2, t.api_key);
      for (let i = 0; i < 2; i++) expect((await search(c2)).error).toBeUndefined();
      expectLimited(await search(c2), 'api_key', 'cheap', 5);
      expectLimited(await search(c), 'api_key', 'cheap', 5);
      await c2.close();
    } finally {
      await app2?.close();
    }
  });

  it('HTTP requests of a key past its request limit get 429 with Retry-After before the MCP layer', async () => {
    const http = await srv.listen();
    const t = await createTenant(srv.app.library.tenancy, 'HTTP caller');
    const other = await createTenant(srv.app.library.tenancy, 'HTTP bystander');
    const post = (key: string) =>
      fetch(http.mcpUrl, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    // without a session these are refused by the MCP transport (400), but each is a request of the key
    for (let i = 0; i < 4; i++) expect((await post(t.api_key)).status).toBe(400);
    const over = await post(t.api_key);
    expect(over.status).toBe(429);
    const retry = Number(over.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(await over.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('retry after') } });
    expect((await post(other.api_key)).status).toBe(400);
  });
});

/**
 * Issue 36 fair shares: once a key is refused for a cost class, its further calls of that class are
 * answered at the HTTP layer (one JSON response) until the window resets, without the MCP session
 * dispatch and SSE stream a served call costs; calls of another class still reach the MCP layer.
 */
describe('a refused key is answered before the MCP layer', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      env: { ATELIER_ENRICHMENT: '0', ATELIER_RATE_CHEAP_PER_KEY: '2', ATELIER_RATE_REQUESTS_PER_KEY: '100' },
    });
  });
  afterAll(async () => srv.close());

  it("answers the key's later calls of the refused class with the same rate_limited result, as JSON", async () => {
    const http = await srv.listen();
    const base = {
      authorization: `Bearer ${srv.tenant.api_key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rate-limit-fast-path', version: '0' } };
    const opened = await fetch(http.mcpUrl, {
      method: 'POST',
      headers: base,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init }),
    });
    await opened.text();
    const headers = { ...base, 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    await (
      await fetch(http.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
    ).text();
    const call = async (id: number, name: string, action: string, args: Record<string, unknown>, h: Record<string, string> = headers) => {
      const r = await fetch(http.mcpUrl, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { action, args } } }),
      });
      return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
    };
    const search = (id: number) => call(id, 'svc_asset_library', 'search', { theme_id: srv.tenant.theme_id });
    for (const id of [1, 2]) expect((await search(id)).type).toMatch(/^text\/event-stream/);
    const first = await search(3); // refused by the limiter, through the MCP layer
    expect(first.type).toMatch(/^text\/event-stream/);
    expect(first.text).toContain('"rate_limited"');

    const later = await search(4);
    expect(later.status).toBe(200);
    expect(later.type).toMatch(/^application\/json/);
    const answer = JSON.parse(later.text) as { jsonrpc: string; id: number; result: { isError: boolean; structuredContent: unknown } };
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: 4,
      result: {
        isError: true,
        structuredContent: { error: { code: 'rate_limited', field: null, details: { scope: 'api_key', cost_class: 'cheap', limit: 2 } } },
      },
    });
    // a call of another class is the MCP layer's to answer (a costly budget of its own)
    const costly = await call(5, APP, 'begin', { filename: 'f.jpg', size_bytes: fir.length, sha256: sha256(fir) });
    expect(costly.type).toMatch(/^text\/event-stream/);
    expect(costly.text).not.toContain('"rate_limited"');
    // the session is still checked: an unknown one is refused as before
    expect((await call(7, 'svc_asset_library', 'search', {}, { ...headers, 'mcp-session-id': 'nope' })).status).toBe(404);

    // the SDK client takes the JSON answer as the tool result
    const client = new Client({ name: 'rate-limit-fast-path-sdk', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${srv.tenant.api_key}` } },
      }),
    );
    try {
      const r = await client.callTool({
        name: 'svc_asset_library',
        arguments: { action: 'search', args: { theme_id: srv.tenant.theme_id } },
      });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toMatchObject({ error: { code: 'rate_limited' } });
    } finally {
      await client.close();
    }
  });
});
