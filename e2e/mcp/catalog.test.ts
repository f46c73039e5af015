import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCatalogFile } from '../../server/catalog/import-file.ts';
import { seedDemoCatalog } from '../../server/catalog/seed-demo.ts';
import { createTenant } from '../../server/tenancy/admin.ts';
import { importDemoCsvs } from '../fixtures/catalog.ts';
import { DEMO_DIR, startTestServer, type TestClient, type TestServer } from './harness.ts';

type Ref = { product_id: string; handle: string };
type Page = {
  items: Ref[];
  total: number;
  returned: number;
  has_more: boolean;
  next_cursor: string | null;
  search_mode: string;
  degraded_from: string | null;
  catalog_synced_at: string | null;
};

describe('catalog: list_products and get_product over the real Shopify CSVs', () => {
  let ts: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    ts = await startTestServer({ env: { ATELIER_EMBEDDER: 'none' } });
    await importDemoCsvs(ts);
    c = await ts.connect();
  });
  afterAll(async () => ts.close());

  const list = async (args: Record<string, unknown>): Promise<Page> => {
    const r = await c.call('svc_catalog', 'list_products', args);
    expect(r.error).toBeUndefined();
    return r.structured as unknown as Page;
  };

  it('svc_discover resolves the former names list_products and get_product to svc_catalog', async () => {
    for (const name of ['list_products', 'get_product', 'search_products']) {
      const r = await c.call('svc_discover', 'discover', { query: name });
      const actions = r.structured.actions as { router: string; action: string }[];
      expect(actions[0]).toMatchObject({ router: 'svc_catalog' });
    }
  });

  it('browses the whole catalog by cursor without gaps or duplicates', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let first: Page | undefined;
    for (let i = 0; i < 30; i++) {
      const p = await list({ limit: 7, ...(cursor ? { cursor } : {}) });
      first ??= p;
      expect(p.returned).toBe(p.items.length);
      seen.push(...p.items.map((x) => x.product_id));
      if (!p.has_more) {
        expect(p.next_cursor).toBeNull();
        break;
      }
      cursor = p.next_cursor!;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(first!.total);
    expect(first!.total).toBeGreaterThan(40);
    expect(first!.search_mode).toBe('lexical');
    expect(first!.degraded_from).toBeNull();
    expect(first!.catalog_synced_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(seen.every((id) => /^gid:\/\/shopify\/Product\/\d+$/.test(id))).toBe(true);
  });

  it('lexical search ranks the Ocean Blue Shirt first and filters by collection and product type', async () => {
    const p = await list({ query: 'ocean blue shirt', search_mode: 'lexical' });
    expect(p.items[0]!.handle).toBe('ocean-blue-shirt');
    expect(p.search_mode).toBe('lexical');
    const jewels = await list({ collection: 'jewelery', limit: 50 });
    expect(jewels.total).toBeGreaterThan(5);
    const jewelIds = new Set(jewels.items.map((i) => i.product_id));
    const all = await list({ query: 'bracelet', search_mode: 'lexical', limit: 50 });
    expect(all.items.every((i) => jewelIds.has(i.product_id))).toBe(true);
    const typed = await list({ product_type: 'bracelet', limit: 50 });
    expect(typed.total).toBeGreaterThan(0);
    expect(typed.items.every((i) => jewelIds.has(i.product_id))).toBe(true);
    // a handle the store does not have is not an empty collection (issue 34): not_found, naming its handles
    const none = await c.call('svc_catalog', 'list_products', { collection: 'no-such-collection' });
    expect(none.error).toMatchObject({ code: 'not_found', field: 'args.collection' });
    const empty = await list({ collection: 'jewelery', query: 'xylophone', search_mode: 'lexical' });
    expect(empty).toMatchObject({ total: 0, returned: 0, has_more: false, next_cursor: null });
  });

  it('rule 9: hybrid and semantic without an embedder return lexical results with degraded_from', async () => {
    for (const mode of ['hybrid', 'semantic']) {
      const p = await list({ query: 'ocean blue shirt', search_mode: mode });
      expect(p.search_mode).toBe('lexical');
      expect(p.degraded_from).toBe(mode);
      expect(p.items[0]!.handle).toBe('ocean-blue-shirt');
    }
    const r = await c.call('svc_catalog', 'list_products', { query: 'ocean' });
    expect(r.text).toMatch(/degraded_from hybrid/);
  });

  it('rule 5 and argument validation name the field', async () => {
    const some = (await list({ limit: 1 })).items[0]!;
    const cases: [Record<string, unknown>, string][] = [
      [{ query: 'shirt', related_to_product_id: some.product_id }, 'args.related_to_product_id'],
      [{ limit: 0 }, 'args.limit'],
      [{ limit: 51 }, 'args.limit'],
      [{ search_mode: 'fuzzy' }, 'args.search_mode'],
      [{ related_to_product_id: 'gid://shopify/Collection/1' }, 'args.related_to_product_id'],
      [{ cursor: 'garbage' }, 'args.cursor'],
      [{ store_id: 'not-a-uuid' }, 'args.store_id'],
      [{ status: [] }, 'args.status'],
      [{ extra: 1 }, 'args'],
    ];
    for (const [args, field] of cases) {
      const r = await c.call('svc_catalog', 'list_products', args);
      expect(r.error, JSON.stringify(args)).toMatchObject({ code: 'invalid_argument', field });
    }
    const p = await list({ query: 'shirt', limit: 1 });
    const other = await c.call('svc_catalog', 'list_products', { query: 'pants', limit: 1, cursor: p.next_cursor });
    expect(other.error).toMatchObject({ code: 'invalid_argument', field: 'args.cursor' });
    const missing = await c.call('svc_catalog', 'list_products', { related_to_product_id: 'gid://shopify/Product/1' });
    expect(missing.error).toMatchObject({ code: 'not_found', field: 'args.related_to_product_id' });
  });

  it('related products share collections, type or tags and exclude the product itself', async () => {
    const src = (await list({ query: 'anchor bracelet', search_mode: 'lexical' })).items[0]!;
    const p = await list({ related_to_product_id: src.product_id, search_mode: 'lexical', limit: 50 });
    expect(p.items.length).toBeGreaterThan(3);
    expect(p.items.map((i) => i.product_id)).not.toContain(src.product_id);
    const jewels = new Set((await list({ collection: 'jewelery', limit: 50 })).items.map((i) => i.product_id));
    expect(jewels.has(p.items[0]!.product_id)).toBe(true);
  });

  it('get_product returns products in request order with exact prices and lists unknown ids in not_found', async () => {
    const refs = (await list({ limit: 3 })).items;
    const unknown = 'gid://shopify/Product/424242';
    const ids = [refs[2]!.product_id, unknown, refs[0]!.product_id, refs[1]!.product_id];
    const r = await c.call('svc_catalog', 'get_product', { product_ids: ids });
    expect(r.error).toBeUndefined();
    const products = r.structured.products as {
      id: string;
      product_id: string;
      variants: { price: string; compare_at_price: string | null; id: string }[];
      images: unknown[];
    }[];
    expect(products.map((p) => p.id)).toEqual([refs[2]!.product_id, refs[0]!.product_id, refs[1]!.product_id]);
    expect(r.structured.not_found).toEqual([unknown]);
    const shirt = await c.call('svc_catalog', 'get_product', { handle: 'ocean-blue-shirt' });
    const p = (
      shirt.structured.products as {
        title: string;
        variants: { price: string; compare_at_price: string | null; available: boolean }[];
        images: { url: string }[];
        status: string;
        collections: string[];
      }[]
    )[0]!;
    expect(p).toMatchObject({ title: 'Ocean Blue Shirt', status: 'ACTIVE', collections: ['apparel'] });
    // the CSV writes "50"; prices read as the Admin GraphQL Money scalar spells them (issue 34)
    expect(p.variants[0]).toMatchObject({ price: '50.00', compare_at_price: null, available: true });
    expect(p.images[0]!.url).toBe('https://burst.shopifycdn.com/photos/young-man-in-bright-fashion_925x.jpg');
    const sofa = await c.call('svc_catalog', 'get_product', { handle: 'cream-sofa' });
    expect((sofa.structured.products as { variants: { price: string; compare_at_price: string }[] }[])[0]!.variants[0]).toMatchObject({
      price: '500.00',
      compare_at_price: '750.00',
    });
    expect(shirt.text).toMatch(/Ocean Blue Shirt .* price 50\.00/s);
  });

  it('rule 7: get_product needs 1–20 well-formed GIDs', async () => {
    const twentyOne = Array.from({ length: 21 }, (_, i) => `gid://shopify/Product/${i + 1}`);
    const cases: [Record<string, unknown>, string][] = [
      [{ product_ids: [] }, 'args.product_ids'],
      [{ product_ids: twentyOne }, 'args.product_ids'],
      [{ product_ids: ['gid://shopify/Product/1', 'gid://shopify/ProductVariant/2'] }, 'args.product_ids[1]'],
      [{}, 'args.product_ids'],
    ];
    for (const [args, field] of cases) {
      const r = await c.call('svc_catalog', 'get_product', args);
      expect(r.error, JSON.stringify(args)).toMatchObject({ code: 'invalid_argument', field });
    }
    const twenty = await c.call('svc_catalog', 'get_product', { product_ids: twentyOne.slice(0, 20) });
    expect(twenty.structured.not_found).toHaveLength(20);
  });

  it('re-importing a file updates products instead of duplicating them', async () => {
    const before = (await list({ limit: 1 })).total;
    const text = fs
      .readFileSync(path.join(DEMO_DIR, 'catalog', 'apparel.csv'), 'utf8')
      .replace('Ocean Blue Shirt', 'Ocean Blue Shirt Deluxe');
    const r = await importCatalogFile(
      ts.app.catalog.deps,
      { tenantId: ts.tenant.tenant_id, workspaceId: ts.tenant.workspace_id, storeId: ts.tenant.store_id },
      { name: 'apparel.csv', text },
    );
    expect(r.created).toBe(0);
    expect(r.updated).toBe(r.products);
    expect((await list({ limit: 1 })).total).toBe(before);
    const p = await c.call('svc_catalog', 'get_product', { handle: 'ocean-blue-shirt' });
    expect((p.structured.products as { title: string }[])[0]!.title).toBe('Ocean Blue Shirt Deluxe');
  });

  it('the demo seed step imports the three CSVs into the demo store once (idempotent)', async () => {
    const demo = await createTenant(ts.app.library.tenancy, 'Demo seed');
    const scope = { tenantId: demo.tenant_id, workspaceId: demo.workspace_id };
    await seedDemoCatalog(ts.app, demo, scope);
    const dc = await ts.connect(demo.api_key);
    const first = (await dc.call('svc_catalog', 'list_products', { limit: 1 })).structured as unknown as Page;
    expect(first.total).toBe(60);
    for (const col of ['apparel', 'home-and-garden', 'jewelery']) {
      expect(((await dc.call('svc_catalog', 'list_products', { collection: col, limit: 1 })).structured as unknown as Page).total).toBe(20);
    }
    await seedDemoCatalog(ts.app, demo, scope);
    const again = (await dc.call('svc_catalog', 'list_products', { limit: 1 })).structured as unknown as Page;
    expect(again).toMatchObject({ total: 60, catalog_synced_at: first.catalog_synced_at });
  });

  it('a bad CSV row is rejected naming file, row and column, and nothing is written', async () => {
    const before = (await list({ limit: 1 })).total;
    const text = 'Handle,Title,Variant Price\nnew-thing,New Thing,9.99\nnew-thing,,abc\n';
    await expect(
      importCatalogFile(
        ts.app.catalog.deps,
        { tenantId: ts.tenant.tenant_id, workspaceId: ts.tenant.workspace_id, storeId: ts.tenant.store_id },
        { name: 'bad.csv', text },
      ),
    ).rejects.toMatchObject({ code: 'invalid_argument', field: 'bad.csv row 3 column "Variant Price"' });
    expect((await list({ limit: 1 })).total).toBe(before);
  });
});
