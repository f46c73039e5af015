import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDemoCsvs } from '../fixtures/catalog.ts';
import { smallHeic } from './fixtures.ts';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

/** Issue 34 item 5: small answers that were wrong. The catalog cases share one server with the demo CSVs. */
let ts: TestServer;
let c: TestClient;
beforeAll(async () => {
  ts = await startTestServer();
  await importDemoCsvs(ts);
  c = await ts.connect();
});
afterAll(() => ts.close());

describe('suggestions are bounded by limit', () => {
  it('list_products: matches plus suggestions never exceed limit', async () => {
    let suggested = 0;
    for (const query of ['raspberry swatch', 'velvet', 'gold ring', 'linen', 'ceramic', 'silk scarf', 'xylophone'])
      for (const limit of [1, 2, 3]) {
        const r = await c.call('svc_catalog', 'list_products', { query, limit });
        expect(r.error).toBeUndefined();
        const items = (r.structured.items as unknown[]).length;
        const suggestions = ((r.structured.suggestions as unknown[] | undefined) ?? []).length;
        expect(items + suggestions, `${query} limit ${limit}`).toBeLessThanOrEqual(limit);
        suggested += suggestions;
      }
    expect(suggested).toBeGreaterThan(0); // the bound was exercised, not vacuous
  });
});

describe('catalog answers in one form', () => {
  it('an unknown collection handle is not_found with the near handles, an existing one filters', async () => {
    const typo = await c.call('svc_catalog', 'list_products', { collection: 'aparel' });
    expect(typo.error).toMatchObject({ code: 'not_found', field: 'args.collection', details: { near_handles: ['apparel'] } });
    expect(typo.error!.message).toContain('apparel');
    const far = await c.call('svc_catalog', 'list_products', { collection: 'xylophones', query: 'shirt' });
    expect(far.error).toMatchObject({ code: 'not_found', field: 'args.collection' });
    expect((far.error!.details as { near_handles: string[] }).near_handles.sort()).toEqual(['apparel', 'home-and-garden', 'jewelery']);
    const ok = await c.call('svc_catalog', 'list_products', { collection: 'Apparel', limit: 2 });
    expect(ok.error).toBeUndefined();
    expect((ok.structured.items as unknown[]).length).toBe(2);
    // an existing collection that matches nothing stays an empty page, not an error
    const none = await c.call('svc_catalog', 'list_products', { collection: 'apparel', query: 'xylophone', search_mode: 'lexical' });
    expect(none.error).toBeUndefined();
    expect(none.structured.items).toEqual([]);
  });

  it('prices from a product CSV ("80") read as the Admin GraphQL gives them ("80.00")', async () => {
    const list = await c.call('svc_catalog', 'list_products', { query: 'classic leather jacket', search_mode: 'lexical', limit: 1 });
    const id = (list.structured.items as { product_id: string }[])[0]!.product_id;
    const got = await c.call('svc_catalog', 'get_product', { product_ids: [id] });
    const variants = (got.structured.products as { variants: { price: string; compare_at_price: string | null }[] }[])[0]!.variants;
    expect(variants.length).toBeGreaterThan(0);
    for (const v of variants) {
      expect(v.price).toMatch(/^\d+\.\d{2,}$/);
      if (v.compare_at_price !== null) expect(v.compare_at_price).toMatch(/^\d+\.\d{2,}$/);
    }
    expect(variants[0]!.price).toBe('80.00');
  });
});

describe('concept expansion stays in the sense a reader means', () => {
  it('"raspberry swatch" does not search for "bird" (a rare sense of raspberry)', async () => {
    const r = await c.call('svc_catalog', 'list_products', { query: 'raspberry swatch', search_mode: 'lexical' });
    expect(r.error).toBeUndefined();
    const expanded = (r.structured.expanded_terms as string[]).map((t) => t.toLowerCase());
    expect(expanded.join(' ')).not.toMatch(/\bbird\b/);
    expect(r.text).not.toMatch(/\bbird\b/i);
    // a general word still reaches the specific things under it
    const g = await c.call('svc_catalog', 'list_products', { query: 'jewelry', search_mode: 'lexical' });
    expect((g.structured.items as unknown[]).length).toBeGreaterThan(0);
  });
});

describe('pixel-identical imports', () => {
  // an empty library of its own: the test counts what it holds
  let lib: TestServer;
  let lc: TestClient;
  beforeAll(async () => {
    lib = await startTestServer();
    lc = await lib.connect();
  });
  afterAll(() => lib.close());

  it('a HEIC re-exported with other metadata is the same asset, not a second one sharing its file', async () => {
    const heic = smallHeic();
    // a top-level ISO-BMFF `free` box (ISO/IEC 14496-12 §8.1.2) after the file: other bytes, the same pixels
    const note = Buffer.from('re-exported by another app');
    const free = Buffer.concat([Buffer.alloc(4), Buffer.from('free'), note]);
    free.writeUInt32BE(free.length, 0);
    const reexported = Buffer.concat([heic, free]);
    const first = await lc.call('svc_asset_import', 'import', {
      data: heic.toString('base64'),
      mime_type: 'image/heic',
      filename: 'a.heic',
    });
    expect(first.error).toBeUndefined();
    expect(first.structured.deduplicated).toBe(false);
    const second = await lc.call('svc_asset_import', 'import', {
      data: reexported.toString('base64'),
      mime_type: 'image/heic',
      filename: 'b.heic',
    });
    expect(second.error).toBeUndefined();
    expect(second.structured).toMatchObject({ asset_id: first.structured.asset_id, deduplicated: true, url: first.structured.url });
    expect(second.structured.not_applied).toEqual(['filename']);
    const all = await lc.call('svc_asset_library', 'search', { theme_id: lib.tenant.theme_id });
    expect(all.error).toBeUndefined();
    expect((all.structured.assets as unknown[]).length).toBe(1);
  });
});
