import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { importDemoCsvs } from '../fixtures/catalog.ts';
import { hashingEmbedder } from '../fixtures/test-embedders.ts';
import { smallDemoPhoto } from './fixtures.ts';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';
import { resume, waitPaused } from './processes.ts';

/**
 * Index state in every answer (issue 33): while enrichment has not analysed an asset, search and select
 * say how much of the workspace is still being analysed (`indexing: {pending, total}`), and a no-match
 * tells the agent to retry shortly instead of generating. The analysis is held at the
 * `enrichment-analyze` pause point (server/test-hooks.ts), so "pending" is a state, not a race.
 */
describe('index state while enrichment runs', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  const pauseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pause-'));
  // a query about nothing the library holds, analysed or not
  const NOTHING = { query: 'zebra crossing', mode: 'all' };

  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_TEST_PAUSE_AT: 'enrichment-analyze', ATELIER_TEST_PAUSE_DIR: pauseDir } });
    c = await srv.connect();
    theme = srv.tenant.theme_id;
  });
  afterAll(async () => {
    await srv.close();
    fs.rmSync(pauseDir, { recursive: true, force: true });
  });

  it('a no-match while an asset is being analysed says to retry, not to generate; afterwards it says to generate', async () => {
    const imp = await c.call('svc_asset_import', 'import', {
      data: (await smallDemoPhoto('images/nature/silver_fir.jpg', 400)).toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'silver_fir.jpg',
    });
    expect(imp.error).toBeUndefined();
    await waitPaused(pauseDir, 'enrichment-analyze');

    const during = await c.call('svc_asset_library', 'search', { theme_id: theme, ...NOTHING });
    expect(during.error).toBeUndefined();
    expect(during.structured.total).toBe(0);
    expect((during.structured.request as Record<string, unknown>).indexing).toEqual({ pending: 1, total: 1 });
    expect(during.text).toContain('1 of 1 assets are still being analysed');
    expect(during.text).toContain('Retry this search in a few seconds');
    expect(during.text).not.toContain('Next step: generate');

    // a match found while indexing still says that more may come
    const found = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'silver_fir', mode: 'filename' });
    expect(found.structured.total).toBe(1);
    expect((found.structured.request as Record<string, unknown>).indexing).toEqual({ pending: 1, total: 1 });
    expect(found.text).toContain('more matches may appear shortly');

    // select (text delivery: this client renders no panel and has no elicitation) reports it too
    const sel = await c.call('svc_asset_select', 'select', { theme_id: theme, ...NOTHING });
    expect(sel.error).toBeUndefined();
    expect(sel.structured).toMatchObject({ delivery: 'text', candidates: [], indexing: { pending: 1, total: 1 } });
    expect(sel.text).toContain('Retry select in a few seconds');
    expect(sel.text).not.toContain('generate or import an asset');

    resume(pauseDir, 'enrichment-analyze');
    await waitForEnrichment(c, theme, 60_000);

    const after = await c.call('svc_asset_library', 'search', { theme_id: theme, ...NOTHING });
    expect(after.structured.total).toBe(0);
    expect(after.structured.request).not.toHaveProperty('indexing');
    expect(after.text).toContain('Next step: generate the asset');
    expect(after.text).not.toContain('still being analysed');
    const selAfter = await c.call('svc_asset_select', 'select', { theme_id: theme, ...NOTHING });
    expect(selAfter.structured).not.toHaveProperty('indexing');
    expect(selAfter.text).toContain('generate or import an asset');
  }, 120_000);

  it('svc_discover shows request.indexing in the search result schema', async () => {
    const d = await c.call('svc_discover', 'discover', { query: 'search', router: 'svc_asset_library', include_schemas: true });
    const entry = (d.structured.actions as { action: string; result_schema: Record<string, unknown> }[]).find(
      (a) => a.action === 'search',
    )!;
    const request = (entry.result_schema.properties as Record<string, { properties: Record<string, { description?: string }> }>).request!;
    expect(request.properties.indexing?.description).toMatch(/still being analysed/);
  });
});

describe('index state of list_products while the store is being embedded', () => {
  let ts: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    // the catalog is imported with no embedder, so every product waits for the one set below
    ts = await startTestServer({ env: { ATELIER_EMBEDDER: 'none' } });
    await importDemoCsvs(ts);
    c = await ts.connect();
  });
  afterAll(async () => ts.close());

  it('a no-match while products are embedded says to retry, not that the store does not sell it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const base = hashingEmbedder();
    // an embedder whose product batches wait at the gate: the store stays incomplete until released
    ts.app.catalog.setEmbedder({ ...base, embed: async (texts) => (await gate, base.embed(texts)) });
    const args = { query: 'zebra crossing', search_mode: 'hybrid' };
    const during = await c.call('svc_catalog', 'list_products', args);
    expect(during.error).toBeUndefined();
    expect(during.structured.total).toBe(0);
    const indexing = during.structured.indexing as { pending: number; total: number };
    expect(indexing.total).toBeGreaterThan(10);
    expect(indexing.pending).toBe(indexing.total);
    expect(during.text).toContain(`${indexing.pending} of ${indexing.total} products are still being embedded`);
    expect(during.text).not.toContain('The store does not sell it');

    release();
    await ts.app.catalog.deps.indexer.idle();
    const after = await c.call('svc_catalog', 'list_products', args);
    expect(after.structured).not.toHaveProperty('indexing');
    expect(after.text).not.toContain('still being embedded');
  });
});
