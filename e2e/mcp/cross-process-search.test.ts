import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../server/app.ts';
import { createLogger } from '../../server/log.ts';
import { connectApp, demoFile, startTestServer, tempConfig, type TestClient, type TestServer } from './harness.ts';

/**
 * Per-process search state after another process writes (issue 35 item 8): two Apps on one database
 * (the test server, process A, and a second App on its data dir, process B, as a second server process
 * has: its own result cards, vector partitions, synonym rules and lexical vocabulary in memory). B has
 * searched first, so its caches are warm; every write on A must show in B's very next search.
 */
describe('search on one process right after a write on another', () => {
  let srv: TestServer;
  let other: App;
  let a: TestClient;
  let b: TestClient;
  let theme: string;
  let id: string;
  const names = async (query: string, mode?: string): Promise<{ name: string; alt_text: string | null }[]> => {
    const r = await b.call('svc_asset_library', 'search', { theme_id: theme, query, ...(mode ? { mode } : {}) });
    expect(r.error).toBeUndefined();
    return (r.structured.assets as { name: string; alt_text: string | null }[]).map((x) => ({ name: x.name, alt_text: x.alt_text }));
  };

  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    other = await buildApp(tempConfig({ ATELIER_ENRICHMENT: '0' }, srv.config.dataDir), createLogger('silent'));
    a = await srv.connect();
    b = await connectApp(other, srv.tenant.api_key);
    theme = srv.tenant.theme_id;
    const imp = await a.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/prairie_falcon.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'prairie_falcon.jpg',
      alt_text: 'A hawk on a rock',
    });
    expect(imp.error).toBeUndefined();
    id = imp.structured.asset_id as string;
    // B's caches are warm: its result cards and vocabulary hold the asset as first written
    expect(await names('hawk')).toEqual([{ name: 'prairie_falcon.jpg', alt_text: 'A hawk on a rock' }]);
  });
  afterAll(async () => {
    await b.close();
    await other.close();
    await srv.close();
  });

  it('an alt text update on A: B finds the new words at once, shows the new text, and no longer matches the old', async () => {
    const upd = await a.call('svc_asset_manage', 'update', { asset_id: id, alt_text: 'Zephyrine kestrel on sandstone' });
    expect(upd.error).toBeUndefined();
    expect(await names('zephyrine')).toEqual([{ name: 'prairie_falcon.jpg', alt_text: 'Zephyrine kestrel on sandstone' }]);
    expect(await names('hawk', 'alt_text')).toEqual([]);
  });

  it('a synonym rule added on A applies to the next search on B', async () => {
    expect(await names('quorbl')).toEqual([]);
    await srv.app.stores.synonyms.add({ tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id }, null, {
      kind: 'one_way',
      input: 'quorbl',
      words: ['zephyrine'],
    });
    expect((await names('quorbl')).map((x) => x.name)).toEqual(['prairie_falcon.jpg']);
  });

  it('a delete on A: B no longer finds the asset by any of its words', async () => {
    const del = await a.call('svc_asset_manage', 'delete', { asset_ids: [id] });
    expect(del.error).toBeUndefined();
    expect(await names('zephyrine')).toEqual([]);
    expect(await names('prairie_falcon', 'filename')).toEqual([]);
    expect(await names('quorbl')).toEqual([]);
  });
});
