import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
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

const restDump = (products: unknown[]): string => JSON.stringify({ products });
const restProduct = (id: number, handle: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  title: handle.replace(/-/g, ' '),
  handle,
  body_html: `<p>${handle} <b>bold</b> &amp; more</p>`,
  vendor: 'Acme',
  product_type: 'Widget',
  status: 'active',
  tags: 'alpha, beta',
  updated_at: '2026-01-01T00:00:00Z',
  options: [{ name: 'Size', values: ['S', 'M'] }],
  variants: [
    {
      id: id * 10 + 1,
      title: 'S',
      price: '19.99',
      compare_at_price: null,
      sku: `${handle}-s`,
      inventory_quantity: 3,
      inventory_management: 'shopify',
      inventory_policy: 'deny',
      option1: 'S',
    },
    {
      id: id * 10 + 2,
      title: 'M',
      price: '20.00',
      compare_at_price: '25.50',
      sku: `${handle}-m`,
      inventory_quantity: 0,
      inventory_management: 'shopify',
      inventory_policy: 'deny',
      option1: 'M',
      image_id: 7,
    },
  ],
  images: [{ id: 7, src: `https://cdn.example.com/${handle}.jpg`, alt: `${handle} photo`, width: 800, height: 600, position: 1 }],
  ...extra,
});

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
    const none = await list({ collection: 'no-such-collection' });
    expect(none).toMatchObject({ total: 0, returned: 0, has_more: false, next_cursor: null });
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
    expect(p.variants[0]).toMatchObject({ price: '50', compare_at_price: null, available: true });
    expect(p.images[0]!.url).toBe('https://burst.shopifycdn.com/photos/young-man-in-bright-fashion_925x.jpg');
    const sofa = await c.call('svc_catalog', 'get_product', { handle: 'cream-sofa' });
    expect((sofa.structured.products as { variants: { price: string; compare_at_price: string }[] }[])[0]!.variants[0]).toMatchObject({
      price: '500',
      compare_at_price: '750',
    });
    expect(shirt.text).toMatch(/Ocean Blue Shirt .* price 50/s);
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
    const demo = createTenant(ts.app.library.tenancy, 'Demo seed');
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

describe('catalog: scoping (rule 8), status filtering and the products.json dump', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer({ env: { ATELIER_EMBEDDER: 'none' } });
  });
  afterAll(async () => ts.close());

  it('keeps stores and tenants apart, asks for store_id when ambiguous, and round-trips price strings', async () => {
    const t = ts.tenant;
    const c = await ts.connect();
    const storeA = t.store_id;
    const storeB = randomUUID();
    ts.app.library.tenancy.insertStore({
      id: storeB,
      tenant_id: t.tenant_id,
      workspace_id: t.workspace_id,
      name: 'Second store',
      platform: 'shopify',
      shop_domain: null,
      created_at: new Date().toISOString(),
    });
    const deps = ts.app.catalog.deps;
    const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id };
    await importCatalogFile(
      deps,
      { ...scope, storeId: storeA },
      { name: 'a.json', text: restDump([restProduct(101, 'alpha-widget'), restProduct(102, 'draft-widget', { status: 'draft' })]) },
    );
    await importCatalogFile(deps, { ...scope, storeId: storeB }, { name: 'b.json', text: restDump([restProduct(201, 'beta-widget')]) });
    const other = createTenant(ts.app.library.tenancy, 'Other tenant');
    await importCatalogFile(
      deps,
      { tenantId: other.tenant_id, workspaceId: other.workspace_id, storeId: other.store_id },
      { name: 'c.json', text: restDump([restProduct(301, 'gamma-widget')]) },
    );

    const amb = await c.call('svc_catalog', 'list_products', {});
    expect(amb.error).toMatchObject({ code: 'ambiguous_scope', field: 'args.store_id' });
    expect(JSON.stringify(amb.error?.details)).toContain(storeB);
    const ambGet = await c.call('svc_catalog', 'get_product', { product_ids: ['gid://shopify/Product/101'] });
    expect(ambGet.error).toMatchObject({ code: 'ambiguous_scope', field: 'args.store_id' });

    const a = await c.call('svc_catalog', 'list_products', { store_id: storeA, query: 'widget', search_mode: 'lexical' });
    expect((a.structured.items as Ref[]).map((i) => i.handle)).toEqual(['alpha-widget']);
    const drafts = await c.call('svc_catalog', 'list_products', { store_id: storeA, status: ['ACTIVE', 'DRAFT'] });
    expect((drafts.structured.items as Ref[]).map((i) => i.handle).sort()).toEqual(['alpha-widget', 'draft-widget']);
    const b = await c.call('svc_catalog', 'list_products', { store_id: storeB, query: 'widget', search_mode: 'lexical' });
    expect((b.structured.items as Ref[]).map((i) => i.handle)).toEqual(['beta-widget']);

    // products of another store and another tenant are not_found, never returned
    const g = await c.call('svc_catalog', 'get_product', {
      store_id: storeA,
      product_ids: ['gid://shopify/Product/201', 'gid://shopify/Product/101', 'gid://shopify/Product/301', 'gid://shopify/Product/102'],
    });
    const products = g.structured.products as {
      id: string;
      status: string;
      description_html: string;
      tags: string[];
      images: unknown[];
      variants: {
        id: string;
        price: string;
        compare_at_price: string | null;
        available: boolean;
        image_url: string | null;
        selected_options: unknown[];
      }[];
    }[];
    expect(products.map((p) => p.id)).toEqual(['gid://shopify/Product/101', 'gid://shopify/Product/102']);
    expect(products[1]!.status).toBe('DRAFT');
    expect(g.structured.not_found).toEqual(['gid://shopify/Product/201', 'gid://shopify/Product/301']);
    expect(products[0]!.variants).toEqual([
      {
        id: 'gid://shopify/ProductVariant/1011',
        title: 'S',
        price: '19.99',
        compare_at_price: null,
        sku: 'alpha-widget-s',
        available: true,
        image_url: null,
        selected_options: [{ name: 'Size', value: 'S' }],
      },
      {
        id: 'gid://shopify/ProductVariant/1012',
        title: 'M',
        price: '20.00',
        compare_at_price: '25.50',
        sku: 'alpha-widget-m',
        available: false,
        image_url: 'https://cdn.example.com/alpha-widget.jpg',
        selected_options: [{ name: 'Size', value: 'M' }],
      },
    ]);
    expect(products[0]).toMatchObject({
      description_html: '<p>alpha-widget <b>bold</b> &amp; more</p>',
      tags: ['alpha', 'beta'],
      images: [{ url: 'https://cdn.example.com/alpha-widget.jpg', alt_text: 'alpha-widget photo', width: 800, height: 600 }],
      total_inventory: 3,
    });
    // the lexical index holds description text without HTML and variant SKUs
    const bySku = await c.call('svc_catalog', 'list_products', { store_id: storeA, query: 'alpha-widget-m', search_mode: 'lexical' });
    expect((bySku.structured.items as Ref[])[0]?.handle).toBe('alpha-widget');

    const oc = await ts.connect(other.api_key);
    const o = await oc.call('svc_catalog', 'list_products', { query: 'widget', search_mode: 'lexical' });
    expect((o.structured.items as Ref[]).map((i) => i.handle)).toEqual(['gamma-widget']);
    const foreignStore = await oc.call('svc_catalog', 'list_products', { store_id: storeA });
    expect(foreignStore.error).toMatchObject({ code: 'not_found', field: 'args.store_id' });
    const og = await oc.call('svc_catalog', 'get_product', { product_ids: ['gid://shopify/Product/101'] });
    expect(og.structured).toMatchObject({ products: [], not_found: ['gid://shopify/Product/101'] });
  });

  it('asks for workspace_id when the API key reaches several active workspaces (rule 8)', async () => {
    const { createWorkspace } = await import('../../server/tenancy/admin.ts');
    const other = createTenant(ts.app.library.tenancy, 'Two workspaces');
    const ws2 = createWorkspace(ts.app.library.tenancy, other.tenant_id, 'Second workspace');
    const c = await ts.connect(other.api_key);
    const amb = await c.call('svc_catalog', 'list_products', {});
    expect(amb.error).toMatchObject({ code: 'ambiguous_scope', field: 'args.workspace_id' });
    const ok = await c.call('svc_catalog', 'list_products', { workspace_id: ws2.workspace_id });
    expect(ok.structured).toMatchObject({ total: 0, catalog_synced_at: null });
    const foreign = await c.call('svc_catalog', 'get_product', {
      workspace_id: ts.tenant.workspace_id,
      product_ids: ['gid://shopify/Product/101'],
    });
    expect(foreign.error).toMatchObject({ code: 'not_found', field: 'args.workspace_id' });
  });

  it('rejects a products.json with a float-like bad price, naming the JSON path', async () => {
    const t = ts.tenant;
    const bad = restProduct(900, 'bad-widget');
    (bad.variants as { price: string }[])[1]!.price = '12,50';
    await expect(
      importCatalogFile(
        ts.app.catalog.deps,
        { tenantId: t.tenant_id, workspaceId: t.workspace_id, storeId: t.store_id },
        { name: 'p.json', text: restDump([bad]) },
      ),
    ).rejects.toMatchObject({ code: 'invalid_argument', field: 'p.json.products[0].variants[1].price' });
  });
});
