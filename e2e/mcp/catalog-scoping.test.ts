import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCatalogFile } from '../../server/catalog/import-file.ts';
import { createTenant } from '../../server/tenancy/admin.ts';
import { startTestServer, type TestServer } from './harness.ts';

type Ref = { product_id: string; handle: string };

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
    await ts.app.library.tenancy.insertStore({
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
    const other = await createTenant(ts.app.library.tenancy, 'Other tenant');
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
    const other = await createTenant(ts.app.library.tenancy, 'Two workspaces');
    const ws2 = await createWorkspace(ts.app.library.tenancy, other.tenant_id, 'Second workspace');
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
