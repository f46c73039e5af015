import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../server/app.ts';
import { createLogger } from '../../server/log.ts';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { connectApp, demoFile, startTestServer, tempConfig, type TestClient, type TestServer } from './harness.ts';

/**
 * Per-process vector partitions after another process writes (issue 35 item 8; the lexical caches are
 * in cross-process-search.test.ts). On PostgreSQL this needs pgvector, so it runs on PGlite, not in
 * the real-PostgreSQL part (e2e/pg/vitest.config.ts). B holds each workspace's vectors in memory
 * (int8 partitions following the change log); vectors written by A's enrichment must be searched by
 * B's very next semantic query, and a re-embedded or deleted asset must stop matching its old text.
 * B's workers never start (no `startWorkers()`), so every vector it searches was written by A.
 */
describe('semantic search on one process right after enrichment on another', () => {
  let srv: TestServer;
  let other: App;
  let a: TestClient;
  let b: TestClient;
  let theme: string;
  const semantic = async (query: string): Promise<string[]> => {
    const r = await b.call('svc_asset_library', 'search', { theme_id: theme, query, mode: 'semantic' });
    expect(r.error).toBeUndefined();
    return (r.structured.assets as { name: string }[]).map((x) => x.name);
  };
  const importOnA = async (rel: string, alt: string): Promise<string> => {
    const file = rel.split('/').pop()!;
    const r = await a.call('svc_asset_import', 'import', {
      data: demoFile(rel).toString('base64'),
      mime_type: 'image/jpeg',
      filename: file,
      alt_text: alt,
    });
    expect(r.error).toBeUndefined();
    await waitForEnrichment(a, theme);
    return r.structured.asset_id as string;
  };

  beforeAll(async () => {
    srv = await startTestServer();
    // B's enrichment is configured (so it searches vectors) but its workers never start
    other = await buildApp(tempConfig({}, srv.config.dataDir), createLogger('silent'));
    a = await srv.connect();
    b = await connectApp(other, srv.tenant.api_key);
    theme = srv.tenant.theme_id;
    // a photo whose file carries no caption or keywords: its words are only the name and what the test types
    await importOnA('images/nature/wood_anemones.jpg', 'A prairie falcon perched on a rock');
    // B's partitions are loaded: it has answered a semantic query over the falcon's vector
    expect(await semantic('hawk')).toEqual(['wood_anemones.jpg']);
  });
  afterAll(async () => {
    await b.close();
    await other.close();
    await srv.close();
  });

  it('a new asset embedded on A is found by B at once', async () => {
    expect(await semantic('sailing boat')).toEqual([]);
    await importOnA('images/nature/silver_fir.jpg', 'A wooden sailing boat moored in a harbour');
    expect(await semantic('sailing boat')).toEqual(['silver_fir.jpg']);
  });

  it('an asset re-embedded on A after an alt text change matches its new text on B, not its old', async () => {
    const list = await b.call('svc_asset_library', 'search', { theme_id: theme, query: 'wood_anemones', mode: 'filename' });
    const id = (list.structured.assets as { id: string }[])[0]!.id;
    const upd = await a.call('svc_asset_manage', 'update', { asset_id: id, alt_text: 'A red sports car on a racetrack' });
    expect(upd.error).toBeUndefined();
    await waitForEnrichment(a, theme);
    expect(await semantic('sports car')).toEqual(['wood_anemones.jpg']);
    expect(await semantic('hawk')).toEqual([]);
  });

  it('an asset deleted on A is gone from B’s semantic answers', async () => {
    const list = await b.call('svc_asset_library', 'search', { theme_id: theme, query: 'silver_fir', mode: 'filename' });
    const id = (list.structured.assets as { id: string }[])[0]!.id;
    const del = await a.call('svc_asset_manage', 'delete', { asset_ids: [id] });
    expect(del.error).toBeUndefined();
    expect(await semantic('sailing boat')).toEqual([]);
  });
});
