import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

describe('smoke', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer();
    c = await srv.connect();
  });
  afterAll(async () => srv.close());

  it('imports and finds an asset', async () => {
    const imp = await c.call('svc_asset_import', 'import', { data: demoFile('images/nature/prairie_falcon.jpg').toString('base64'), mime_type: 'image/jpeg', filename: 'prairie_falcon.jpg', tags: ['bird'] });
    expect(imp.error).toBeUndefined();
    const r = await c.call('svc_asset_library', 'search', { query: 'falcon', mode: 'filename', theme_id: srv.tenant.theme_id });
    expect(r.error).toBeUndefined();
    expect((r.structured.assets as { name: string }[])[0]?.name).toBe('prairie_falcon.jpg');
  });
});
