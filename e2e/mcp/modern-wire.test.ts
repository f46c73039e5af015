import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTERS } from '../../shared/actions.ts';
import { startTestServer, type TestServer } from './harness.ts';

const MODERN = '2026-07-28';

/**
 * Revision 2026-07-28 on the wire (issue 31 items 2 and 5), as a hand-written client sends it: no
 * initialize and no session, the envelope in `_meta`, the SEP-2243 standard headers.
 */
describe('2026-07-28 requests on /mcp', () => {
  let srv: TestServer;
  let url: string;
  beforeAll(async () => {
    srv = await startTestServer({
      env: { ATELIER_ENRICHMENT: '0', ATELIER_EMBEDDER: 'none', ATELIER_CORS_ORIGINS: 'https://host.example' },
    });
    url = (await srv.listen()).mcpUrl;
  });
  afterAll(async () => srv.close());

  let id = 0;
  async function post(method: string, params: Record<string, unknown> = {}, name?: string) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${srv.tenant.api_key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': method,
        ...(name ? { 'Mcp-Name': name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          },
        },
      }),
    });
    const text = await res.text();
    const json = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)![1]!;
    return {
      status: res.status,
      headers: res.headers,
      body: JSON.parse(json) as { result?: Record<string, unknown>; error?: { code: number } },
    };
  }

  it('answers server/discover without a session; capabilities have tools and MCP Apps but not the deprecated logging', async () => {
    const r = await post('server/discover');
    expect(r.headers.get('mcp-session-id')).toBeNull();
    const caps = r.body.result!.capabilities as Record<string, unknown>;
    expect(caps.tools).toBeDefined();
    expect(caps.extensions).toHaveProperty(['io.modelcontextprotocol/ui']);
    expect(caps.logging).toBeUndefined();
    expect(r.body.result!.instructions).toContain(srv.tenant.theme_id);
  });

  it('lists tools cacheably (ttlMs, cacheScope) in the registry order, the same on every request', async () => {
    const a = await post('tools/list');
    const b = await post('tools/list');
    expect(a.body.result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'private' });
    expect(a.body.result!.ttlMs as number).toBeGreaterThan(0);
    const names = (r: typeof a) => (r.body.result!.tools as { name: string }[]).map((t) => t.name);
    expect(names(a)).toEqual(names(b));
    expect(names(a)).toEqual(ROUTERS.map((d) => d.name).filter((n) => names(a).includes(n)));
  });

  it('calls a router tool statelessly', async () => {
    const r = await post('tools/call', { name: 'svc_discover', arguments: { action: 'scope', args: {} } }, 'svc_discover');
    expect(r.body.result!.isError).toBeFalsy();
    expect((r.body.result!.structuredContent as { defaults: { theme_id: string } }).defaults.theme_id).toBe(srv.tenant.theme_id);
  });

  it('answers malformed protocol requests with -32602 / -32601, never -32603', async () => {
    const notUri = await post('resources/read', { uri: 'not a uri' }, 'not a uri');
    expect(notUri.body.error?.code).toBe(-32602);
    const unknownResource = await post('resources/read', { uri: 'ui://atelier/nope.html' }, 'ui://atelier/nope.html');
    expect(unknownResource.body.error?.code).toBe(-32602);
    const unknown = await post('no/such/method');
    expect(unknown.body.error?.code).toBe(-32601);
    const badParams = await post('tools/call', { name: 7 }, '7');
    expect([-32602, -32020]).toContain(badParams.body.error?.code);
    const unknownTool = await post('tools/call', { name: 'svc_nope', arguments: {} }, 'svc_nope');
    expect(unknownTool.body.error?.code).toBe(-32602);
  });

  it('lets browsers send Mcp-Method and Mcp-Name (CORS preflight)', async () => {
    const res = await fetch(url, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://host.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'mcp-method,mcp-name',
      },
    });
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    expect(allowed).toContain('mcp-method');
    expect(allowed).toContain('mcp-name');
  });
});
