import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncCatalog } from '../../server/catalog/sync.ts';
import { fakeProduct, startFakeShopifyAdmin, type FakeShopifyAdmin } from '../fixtures/fake-shopify-admin.ts';
import { backendEnv, DEMO_DIR, REPO_ROOT, startTestServer, type TestClient, type TestServer } from './harness.ts';
import { CLI } from './processes.ts';

const TOKEN = 'shpat_test_token';
type Variant = {
  id: string;
  title: string;
  price: string;
  compare_at_price: string | null;
  available: boolean;
  image_url: string | null;
  sku: string;
};
type Product = {
  id: string;
  title: string;
  status: string;
  variants: Variant[];
  images: unknown[];
  collections: string[];
  selling_plan_groups: { name: string; selling_plans: Record<string, unknown>[] }[];
  total_inventory: number;
};

describe('catalog sync from the Shopify Admin GraphQL API (local fake server)', () => {
  let fake: FakeShopifyAdmin;
  let ts: TestServer;
  let c: TestClient;
  const scope = (): { tenantId: string; workspaceId: string; storeId: string } => ({
    tenantId: ts.tenant.tenant_id,
    workspaceId: ts.tenant.workspace_id,
    storeId: ts.tenant.store_id,
  });

  beforeAll(async () => {
    fake = await startFakeShopifyAdmin({ token: TOKEN, variantPageSize: 2 });
    fake.products.push(
      ...Array.from({ length: 6 }, (_, i) => fakeProduct(i + 1)),
      fakeProduct(7, {
        variantCount: 5,
        title: 'Subscription coffee',
        sellingPlanGroups: [
          {
            id: 'gid://shopify/SellingPlanGroup/1',
            name: 'Subscribe and save',
            merchantCode: 'sub-save',
            summary: '2 delivery frequencies, 10% discount',
            options: ['Delivery every'],
            sellingPlans: {
              nodes: [
                {
                  id: 'gid://shopify/SellingPlan/11',
                  name: 'Delivered every week',
                  description: null,
                  options: ['1 week'],
                  billingPolicy: { interval: 'WEEK', intervalCount: 1 },
                  deliveryPolicy: { interval: 'WEEK', intervalCount: 1 },
                  pricingPolicies: [{ adjustmentType: 'PERCENTAGE', adjustmentValue: { percentage: 10 } }],
                },
              ],
            },
          },
        ],
      }),
      fakeProduct(8, { status: 'DRAFT' }),
    );
    ts = await startTestServer({
      env: { ATELIER_EMBEDDER: 'none', ATELIER_SHOPIFY_ADMIN_URL: fake.url, ATELIER_SHOPIFY_ACCESS_TOKEN: TOKEN },
    });
    c = await ts.connect();
  });
  afterAll(async () => {
    await ts.close();
    await fake.close();
  });

  it('full sync pages through products and variants, survives 429 and THROTTLED, and keeps exact platform values', async () => {
    fake.rateLimitNext(1);
    fake.throttleNext(1);
    const r = await syncCatalog(ts.app.catalog.deps, scope(), ts.app.catalog.adminClient().client, { pageSize: 3 });
    expect(r).toMatchObject({ mode: 'full', pages: 3, upserted: 8, deleted: 0, throttled_retries: 2 });
    const ops = fake.requests.map((q) => `${q.op}:${q.status}`);
    expect(ops.slice(0, 3)).toEqual(['AtelierProducts:429', 'AtelierProducts:200', 'AtelierProducts:200']);
    expect(ops.filter((o) => o === 'AtelierVariants:200').length).toBeGreaterThanOrEqual(2);

    const list = await c.call('svc_catalog', 'list_products', { limit: 50 });
    expect(list.structured).toMatchObject({ total: 7, catalog_synced_at: r.catalog_synced_at });
    const g = await c.call('svc_catalog', 'get_product', { product_ids: ['gid://shopify/Product/1007', 'gid://shopify/Product/1008'] });
    const [coffee, draft] = g.structured.products as Product[];
    expect(draft!.status).toBe('DRAFT');
    expect(coffee!.variants.map((v) => v.price)).toEqual(['19.99', '11.50', '12.50', '13.50', '14.50']);
    expect(coffee!.variants[0]).toEqual({
      id: 'gid://shopify/ProductVariant/1007000',
      title: 'S0',
      price: '19.99',
      compare_at_price: null,
      sku: 'SKU-7-0',
      available: true,
      image_url: 'https://cdn.shopify.example/p7.jpg',
      selected_options: [{ name: 'Size', value: 'S0' }],
    });
    expect(coffee!.variants[1]).toMatchObject({ compare_at_price: '99.00', available: false, image_url: null });
    expect(coffee).toMatchObject({
      title: 'Subscription coffee',
      total_inventory: 7,
      collections: ['gadgets'],
      images: [{ url: 'https://cdn.shopify.example/p7.jpg', alt_text: 'Product 7', width: 1200, height: 800 }],
    });
    expect(coffee!.selling_plan_groups).toEqual([
      {
        id: 'gid://shopify/SellingPlanGroup/1',
        name: 'Subscribe and save',
        merchant_code: 'sub-save',
        summary: '2 delivery frequencies, 10% discount',
        options: ['Delivery every'],
        selling_plans: [
          {
            id: 'gid://shopify/SellingPlan/11',
            name: 'Delivered every week',
            description: null,
            billing_policy: { interval: 'WEEK', interval_count: 1 },
            delivery_policy: { interval: 'WEEK', interval_count: 1 },
            pricing_policies: [{ adjustment_type: 'PERCENTAGE', adjustment_value: { percentage: 10 } }],
          },
        ],
      },
    ]);
    const gadgets = await c.call('svc_catalog', 'list_products', { collection: 'gadgets', query: 'coffee', search_mode: 'lexical' });
    expect((gadgets.structured.items as { handle: string }[]).map((i) => i.handle)).toEqual(['synced-product-7']);
  });

  it('incremental sync asks only for updated products and applies an update and a deletion', async () => {
    const p2 = fake.products.find((p) => p.id === 'gid://shopify/Product/1002')!;
    p2.title = 'Synced product 2 renamed';
    p2.variants[0]!.price = '21.00';
    p2.updatedAt = '2026-02-01T00:00:00Z';
    fake.products.splice(
      fake.products.findIndex((p) => p.id === 'gid://shopify/Product/1003'),
      1,
    );
    fake.deletions.push({ subjectId: 'gid://shopify/Product/1003', occurredAt: new Date(Date.now() + 1000).toISOString() });
    fake.requests.length = 0;
    const r = await syncCatalog(ts.app.catalog.deps, scope(), ts.app.catalog.adminClient().client, { pageSize: 3 });
    expect(r.mode).toBe('incremental');
    expect(r.deleted).toBe(1);
    expect(r.upserted).toBeLessThanOrEqual(3);
    const productsReq = fake.requests.find((q) => q.op === 'AtelierProducts')!;
    expect(productsReq.variables.query).toMatch(/^updated_at:>='2026-01-01T00:00:0\dZ'$/);
    expect(fake.requests.some((q) => q.op === 'AtelierDeletions')).toBe(true);

    const g = await c.call('svc_catalog', 'get_product', { product_ids: ['gid://shopify/Product/1002', 'gid://shopify/Product/1003'] });
    expect((g.structured.products as Product[]).map((p) => [p.title, p.variants[0]!.price])).toEqual([
      ['Synced product 2 renamed', '21.00'],
    ]);
    expect(g.structured.not_found).toEqual(['gid://shopify/Product/1003']);
    expect((await c.call('svc_catalog', 'list_products', {})).structured.total).toBe(6);
  });

  it('a full sync drops products the shop no longer lists', async () => {
    fake.products.splice(
      fake.products.findIndex((p) => p.id === 'gid://shopify/Product/1004'),
      1,
    );
    const r = await syncCatalog(ts.app.catalog.deps, scope(), ts.app.catalog.adminClient().client, { full: true, pageSize: 250 });
    expect(r).toMatchObject({ mode: 'full', pages: 1, deleted: 1 });
    const g = await c.call('svc_catalog', 'get_product', { product_ids: ['gid://shopify/Product/1004'] });
    expect(g.structured.not_found).toEqual(['gid://shopify/Product/1004']);
  });

  it('a wrong access token fails with provider_failed and changes nothing', async () => {
    const before = (await c.call('svc_catalog', 'list_products', {})).structured.total;
    const { createAdminGraphqlClient } = await import('../../server/catalog/shopify-admin.ts');
    const bad = createAdminGraphqlClient({ endpoint: fake.url, accessToken: 'wrong', timeoutMs: 5000, log: ts.app.catalog.deps.log });
    await expect(syncCatalog(ts.app.catalog.deps, scope(), bad, { full: true })).rejects.toMatchObject({
      code: 'provider_failed',
      message: expect.stringMatching(/HTTP 401/),
    });
    expect((await c.call('svc_catalog', 'list_products', {})).structured.total).toBe(before);
  });

  it('the CLI runs `catalog sync` and `catalog import` against the same database', async () => {
    const run = promisify(execFile);
    const env = {
      ...process.env,
      // the server's database and blob store (its PostgreSQL schema under npm run test:scale)
      ...backendEnv(path.basename(ts.config.dataDir)),
      ATELIER_DATA_DIR: ts.config.dataDir,
      ATELIER_EMBEDDER: 'none',
      ATELIER_LOG_LEVEL: 'silent',
      ATELIER_SHOPIFY_ADMIN_URL: fake.url,
      ATELIER_SHOPIFY_ACCESS_TOKEN: TOKEN,
    };
    const bin = CLI;
    const sync = await run(process.execPath, [bin, 'catalog', 'sync', '--store', ts.tenant.store_id, '--json'], { env, cwd: REPO_ROOT });
    expect(JSON.parse(sync.stdout)).toMatchObject({ store_id: ts.tenant.store_id, mode: 'incremental', endpoint: fake.url });
    const imp = await run(
      process.execPath,
      [
        bin,
        'catalog',
        'import',
        path.join(DEMO_DIR, 'catalog', 'jewelery.csv'),
        '--store',
        ts.tenant.store_id,
        '--collection',
        'jewelery',
        '--json',
      ],
      { env, cwd: REPO_ROOT },
    );
    const out = JSON.parse(imp.stdout) as { files: { products: number; created: number }[] };
    expect(out.files[0]!.products).toBeGreaterThan(10);
    expect(out.files[0]!.created).toBe(out.files[0]!.products);
    const jewels = await c.call('svc_catalog', 'list_products', { collection: 'jewelery', limit: 50 });
    expect(jewels.structured.total).toBe(out.files[0]!.products);
    const missing = await run(process.execPath, [bin, 'catalog', 'import', 'nope.csv', '--store', ts.tenant.store_id], {
      env,
      cwd: REPO_ROOT,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/nope\.csv does not exist/) });
  }, 60_000);
});
