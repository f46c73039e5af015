import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failingEmbedder, hashingEmbedder } from '../fixtures/test-embedders.ts';
import { importDemoCsvs } from '../fixtures/catalog.ts';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

type Page = {
  items: { product_id: string; handle: string }[];
  total: number;
  search_mode: string;
  degraded_from: string | null;
  has_more: boolean;
  next_cursor: string | null;
};

describe('catalog: semantic, hybrid and related with an embedder; degradation when it fails (rule 9)', () => {
  let ts: TestServer;
  let c: TestClient;
  const embedder = hashingEmbedder();
  beforeAll(async () => {
    ts = await startTestServer({ env: { ATELIER_EMBEDDER: 'none' }, configure: (app) => app.catalog.setEmbedder(embedder) });
    await importDemoCsvs(ts);
    c = await ts.connect();
  });
  afterAll(async () => ts.close());
  const list = async (args: Record<string, unknown>): Promise<Page> => {
    const r = await c.call('svc_catalog', 'list_products', args);
    expect(r.error).toBeUndefined();
    return r.structured as unknown as Page;
  };

  it('semantic and hybrid use the product vectors (KNN, RRF) and page without duplicates', async () => {
    const sem = await list({ query: 'ocean blue shirt', search_mode: 'semantic' });
    expect(sem).toMatchObject({ search_mode: 'semantic', degraded_from: null });
    expect(sem.items.slice(0, 3).map((i) => i.handle)).toContain('ocean-blue-shirt');
    const hyb = await list({ query: 'ocean blue shirt' });
    expect(hyb).toMatchObject({ search_mode: 'hybrid', degraded_from: null });
    expect(hyb.items[0]!.handle).toBe('ocean-blue-shirt');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p: Page = await list({ query: 'bracelet', limit: 9, ...(cursor ? { cursor } : {}) });
      seen.push(...p.items.map((i) => i.product_id));
      cursor = p.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe((await list({ query: 'bracelet', limit: 1 })).total);
  });

  it('lexical search stems English words (Porter): "ocean blue shirts" finds the shirt', async () => {
    const p = await list({ query: 'ocean blue shirts', search_mode: 'lexical' });
    expect(p.items.map((i) => i.handle)).toEqual(['ocean-blue-shirt']);
  });

  it('related products come from embedding distance and exclude the product itself', async () => {
    const src = (await list({ query: 'ocean blue shirt', search_mode: 'lexical' })).items[0]!;
    const rel = await list({ related_to_product_id: src.product_id, search_mode: 'semantic', limit: 5 });
    expect(rel).toMatchObject({ search_mode: 'semantic', degraded_from: null });
    expect(rel.items.map((i) => i.product_id)).not.toContain(src.product_id);
    expect(rel.items.length).toBeGreaterThan(0);
  });

  it('degrades to lexical with degraded_from while the embedder fails, and recovers when it works again', async () => {
    ts.app.catalog.setEmbedder(failingEmbedder(embedder));
    for (const mode of ['semantic', 'hybrid']) {
      const p = await list({ query: 'ocean blue shirt', search_mode: mode });
      expect(p).toMatchObject({ search_mode: 'lexical', degraded_from: mode });
      expect(p.items[0]!.handle).toBe('ocean-blue-shirt');
    }
    ts.app.catalog.setEmbedder(embedder);
    expect(await list({ query: 'ocean blue shirt', search_mode: 'hybrid' })).toMatchObject({ search_mode: 'hybrid', degraded_from: null });
  });

  it('a new embedding model re-embeds the catalog in the background; until then results are degraded', async () => {
    const next = hashingEmbedder('test-hash-32', 32);
    ts.app.catalog.setEmbedder(next);
    const first = await list({ query: 'cream sofa', search_mode: 'semantic' });
    if (first.degraded_from !== null) expect(first).toMatchObject({ search_mode: 'lexical', degraded_from: 'semantic' });
    await ts.app.catalog.deps.indexer.idle();
    const after = await list({ query: 'cream sofa', search_mode: 'semantic' });
    expect(after).toMatchObject({ search_mode: 'semantic', degraded_from: null });
    expect(after.items[0]!.handle).toBe('cream-sofa');
    expect(next.calls).toBeGreaterThan(1);
  });
});

describe('catalog with the real static embedder (GloVe + SIF, issue 4)', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ env: { ATELIER_EMBEDDER: 'static' } });
    await importDemoCsvs(ts);
  });
  afterAll(async () => ts.close());

  it('answers semantic and hybrid queries from stored product vectors', async () => {
    const c = await ts.connect();
    const sem = (await c.call('svc_catalog', 'list_products', { query: 'ocean blue shirt', search_mode: 'semantic', limit: 5 }))
      .structured as unknown as Page;
    expect(sem).toMatchObject({ search_mode: 'semantic', degraded_from: null });
    expect(sem.items.map((i) => i.handle)).toContain('ocean-blue-shirt');
    const hyb = (await c.call('svc_catalog', 'list_products', { query: 'ocean blue shirt', limit: 5 })).structured as unknown as Page;
    expect(hyb).toMatchObject({ search_mode: 'hybrid', degraded_from: null });
    expect(hyb.items[0]!.handle).toBe('ocean-blue-shirt');
    // neighbours far below the best hit are cut, so hybrid does not rank the whole catalog
    expect(hyb.total).toBeLessThan(30);
    // a query without any known word embeds to the zero vector: no semantic neighbours, no error
    const unknown = await c.call('svc_catalog', 'list_products', { query: 'qwzxv', search_mode: 'semantic' });
    expect(unknown.structured).toMatchObject({ total: 0, search_mode: 'semantic', degraded_from: null });
    // a conceptual query with no shared words still finds jewellery among the nearest products
    const conceptual = (await c.call('svc_catalog', 'list_products', { query: 'necklace', search_mode: 'semantic', limit: 5 }))
      .structured as unknown as Page;
    const jewels = (await c.call('svc_catalog', 'list_products', { collection: 'jewelery', limit: 50 })).structured as unknown as Page;
    const jewelIds = new Set(jewels.items.map((i) => i.product_id));
    expect(conceptual.items.filter((i) => jewelIds.has(i.product_id)).length).toBeGreaterThanOrEqual(3);
  });
});

describe('catalog with ATELIER_EMBEDDER=fail (failure injection from config)', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ env: { ATELIER_EMBEDDER: 'fail' } });
    await importDemoCsvs(ts);
  });
  afterAll(async () => ts.close());

  it('keeps products pending and answers semantic, hybrid and related with lexical results and degraded_from', async () => {
    const c = await ts.connect();
    for (const mode of ['semantic', 'hybrid']) {
      const p = (await c.call('svc_catalog', 'list_products', { query: 'ocean blue shirt', search_mode: mode }))
        .structured as unknown as Page;
      expect(p).toMatchObject({ search_mode: 'lexical', degraded_from: mode });
      expect(p.items[0]!.handle).toBe('ocean-blue-shirt');
    }
    const src = (
      (await c.call('svc_catalog', 'list_products', { query: 'cream sofa', search_mode: 'lexical' })).structured as unknown as Page
    ).items[0]!;
    const rel = (await c.call('svc_catalog', 'list_products', { related_to_product_id: src.product_id })).structured as unknown as Page;
    expect(rel).toMatchObject({ search_mode: 'lexical', degraded_from: 'hybrid' });
    expect(rel.items.map((i) => i.product_id)).not.toContain(src.product_id);
    expect(rel.items.length).toBeGreaterThan(0);
  });
});
