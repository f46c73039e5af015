import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant } from '../../server/tenancy/admin.ts';
import { demoFile, startTestServer, type TestServer } from './harness.ts';

/** Issue 36 finding 5: per-key and per-tenant limits by cost class, over the limit a structured rate_limited error. */
describe('rate limits per API key and per tenant', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      env: {
        ATELIER_ENRICHMENT: '0',
        ATELIER_RATE_READ_PER_KEY: '5',
        ATELIER_RATE_READ_PER_TENANT: '8',
        ATELIER_RATE_WRITE_PER_KEY: '1',
        ATELIER_RATE_WRITE_PER_TENANT: '10',
      },
    });
  });
  afterAll(async () => srv.close());

  it('refuses a key past its read limit with rate_limited and retry_after_ms, while another tenant is served', async () => {
    const noisy = await srv.connect();
    const other = await createTenant(srv.app.library.tenancy, 'Quiet tenant');
    const quiet = await srv.connect(other.api_key);
    const search = (c: typeof noisy, theme: string) => c.call('svc_asset_library', 'search', { theme_id: theme, query: 'fir' });
    for (let i = 0; i < 5; i++) expect((await search(noisy, srv.tenant.theme_id)).error).toBeUndefined();
    const over = await search(noisy, srv.tenant.theme_id);
    expect(over.error).toMatchObject({
      code: 'rate_limited',
      field: null,
      details: { scope: 'api_key', cost_class: 'read', limit: 5, window_ms: 60_000, retry_after_ms: expect.any(Number) },
    });
    expect(over.error!.details!.retry_after_ms as number).toBeGreaterThan(0);
    expect(over.error!.details!.retry_after_ms as number).toBeLessThanOrEqual(60_000);
    // another tenant's key has budgets of its own
    expect((await search(quiet, other.theme_id)).error).toBeUndefined();
    // a second key of the noisy tenant has its own key budget but shares the tenant's (8): 3 more, then refused
    const key2 = await createApiKey(srv.app.library.tenancy, srv.tenant.tenant_id);
    const second = await srv.connect(key2.api_key);
    for (let i = 0; i < 3; i++) expect((await search(second, srv.tenant.theme_id)).error).toBeUndefined();
    expect((await search(second, srv.tenant.theme_id)).error).toMatchObject({ code: 'rate_limited', details: { scope: 'tenant' } });
  });

  it('counts writes (imports) apart from reads', async () => {
    const t = await createTenant(srv.app.library.tenancy, 'Writer');
    const c = await srv.connect(t.api_key);
    const data = demoFile('images/nature/notocactus_minimus.jpg').toString('base64');
    expect((await c.call('svc_asset_import', 'import', { data, mime_type: 'image/jpeg', filename: 'a.jpg' })).error).toBeUndefined();
    const again = await c.call('svc_asset_import', 'import', { data, mime_type: 'image/jpeg', filename: 'b.jpg' });
    expect(again.error).toMatchObject({ code: 'rate_limited', details: { cost_class: 'write', scope: 'api_key', limit: 1 } });
    expect((await c.call('svc_asset_library', 'search', { theme_id: t.theme_id })).error).toBeUndefined();
  });
});
