import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../server/tenancy/admin.ts';
import { startTestServer, wrapClient, type TestServer } from './harness.ts';

describe('a revoked API key is refused at once, open sessions included', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
  });
  afterAll(async () => srv.close());

  it("over Streamable HTTP: the open session's next request gets 401", async () => {
    const http = await srv.listen();
    const key = await createApiKey(srv.app.library.tenancy, srv.tenant.tenant_id, { name: 'to revoke' });
    const client = new Client({ name: 'revocation-test', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${key.api_key}` } } }),
    );
    const c = wrapClient(client);
    expect((await c.call('svc_discover', 'scope', {})).isError).toBe(false);
    expect(await revokeApiKey(srv.app.library.tenancy, srv.tenant.tenant_id, key.api_key_id)).toBe(true);
    await expect(c.call('svc_discover', 'scope', {})).rejects.toThrow(/401|invalid API key/);
    // a new session with the key is refused as well; the tenant's other key still works
    const again = new Client({ name: 'revocation-test', version: '0' });
    await expect(
      again.connect(
        new StreamableHTTPClientTransport(new URL(http.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${key.api_key}` } } }),
      ),
    ).rejects.toThrow();
    const other = await srv.connect();
    expect((await other.call('svc_discover', 'scope', {})).isError).toBe(false);
    await client.close().catch(() => undefined);
  });

  it('in-process and stdio sessions (the key is checked on every tool call): unauthenticated after revocation', async () => {
    const key = await createApiKey(srv.app.library.tenancy, srv.tenant.tenant_id, { name: 'in-process' });
    const c = await srv.connect(key.api_key);
    expect((await c.call('svc_assets', 'capabilities', {})).isError).toBe(false);
    await revokeApiKey(srv.app.library.tenancy, srv.tenant.tenant_id, key.api_key_id);
    expect((await c.call('svc_assets', 'capabilities', {})).error).toMatchObject({ code: 'unauthenticated' });
    // revoking twice, or another tenant's key, changes nothing
    expect(await revokeApiKey(srv.app.library.tenancy, srv.tenant.tenant_id, key.api_key_id)).toBe(false);
    expect(await revokeApiKey(srv.app.library.tenancy, '00000000-0000-4000-8000-000000000000', key.api_key_id)).toBe(false);
  });
});
