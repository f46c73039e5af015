import { describe, expect, it } from 'vitest';
import type { CatalogProductInput } from '../../domain/catalog.ts';
import type { ProductStore, StoreScope } from '../ports/product-store.ts';
import type { ProductVectorStore } from '../ports/product-vectors.ts';
import { syntheticProduct } from '../synthetic-product.ts';
import type { StoreFixture } from './fixture.ts';

/** The catalog stores of one database. */
export interface CatalogStores {
  products: ProductStore;
  vectors: ProductVectorStore;
}

/** A fresh database holding the stores of `CATALOG_SCOPES` (store-a and store-b of tenant-a's ws-a, store-c of tenant-b's ws-c). */
export type CatalogStoresFixture = StoreFixture<CatalogStores>;

/** The stores every catalog contract case may use; the fixture creates them (with their tenants and workspaces). */
export const CATALOG_SCOPES = {
  a: { tenantId: 'tenant-a', workspaceId: 'ws-a', storeId: 'store-a' },
  b: { tenantId: 'tenant-a', workspaceId: 'ws-a', storeId: 'store-b' },
  c: { tenantId: 'tenant-b', workspaceId: 'ws-c', storeId: 'store-c' },
} satisfies Record<string, StoreScope>;

const { a, b, c } = CATALOG_SCOPES;
const AT = '2026-03-01T10:00:00.123Z';
const sync = { at: AT, replaceCollections: true };
const file = { at: AT, replaceCollections: false };
const p = syntheticProduct;
/** A selling plan group as a sync stores it: nested objects, lists, nulls and numbers come back as written. */
const SELLING_PLANS = {
  name: 'Subscribe',
  app_id: null,
  selling_plans: [{ name: 'Monthly', billing_policy: { interval: 'MONTH', interval_count: 1 }, options: ['1 month'] }],
};

/** A product with everything a row holds: HTML description, two variants, an image, two collections. */
function fullProduct(): CatalogProductInput {
  return p(1, {
    handle: 'Red-Shoe',
    title: 'Red Shoe',
    description_html: '<p>Soft &amp; <b>warm</b></p>',
    status: 'DRAFT',
    product_type: 'Shoes',
    vendor: 'Acme',
    tags: ['red', 'Leather'],
    options: [{ name: 'Size', values: ['40', '41'] }],
    images: [{ url: 'https://cdn.example.com/a.jpg', alt_text: 'a red shoe', width: 800, height: 600 }],
    variants: [
      {
        gid: 'gid://shopify/ProductVariant/11',
        title: '40',
        price: '19.90',
        compare_at_price: '25.00',
        sku: 'RS-40',
        available: true,
        inventory_quantity: 3,
        image_url: null,
        selected_options: [{ name: 'Size', value: '40' }],
      },
      {
        gid: 'gid://shopify/ProductVariant/12',
        title: '41',
        price: '19.90',
        compare_at_price: null,
        sku: 'RS-41',
        available: false,
        inventory_quantity: null,
        image_url: 'https://cdn.example.com/b.jpg',
        selected_options: [{ name: 'Size', value: '41' }],
      },
    ],
    selling_plan_groups: [SELLING_PLANS],
    collections: [
      { handle: 'Summer', title: 'Summer', gid: null },
      { handle: 'shoes', title: 'Shoes', gid: 'gid://shopify/Collection/7' },
    ],
    total_inventory: null,
    platform_updated_at: '2026-02-01T00:00:00Z',
  });
}

/**
 * The behaviour every `ProductStore` must have, as vitest cases: the port's plain row shapes, store scoping,
 * upsert by GID with variants, images and collection memberships, cursor snapshots, browse order and
 * filters, related products by attributes, sync marks, and a second process seeing the writes.
 */
export function productStoreContract(name: string, f: CatalogStoresFixture): void {
  describe(`ProductStore contract: ${name}`, () => {
    it('writes a product and reads back its row, variants, images and collections in the plain shapes of the port', async () => {
      const { store } = await f.create();
      const s = store.products;
      const [seq] = await s.upsertMany(a, [fullProduct()], 'sync', sync);
      const row = (await s.byGids(a, ['gid://shopify/Product/1'])).get('gid://shopify/Product/1')!;
      expect(row).toEqual({
        seq,
        store_id: 'store-a',
        gid: 'gid://shopify/Product/1',
        handle: 'Red-Shoe',
        title: 'Red Shoe',
        description_html: '<p>Soft &amp; <b>warm</b></p>',
        description_text: 'Soft & warm',
        status: 'DRAFT',
        total_inventory: 3,
        product_type: 'Shoes',
        vendor: 'Acme',
        tags: ['red', 'Leather'],
        options: [{ name: 'Size', values: ['40', '41'] }],
        selling_plan_groups: [SELLING_PLANS],
        source: 'sync',
        platform_updated_at: '2026-02-01T00:00:00Z',
        synced_at: AT,
        embed_text: expect.stringContaining('Red Shoe. Shoes. Acme. red, Leather. 40, 41. Soft & warm'),
        embed_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(await s.variantsOf([seq!])).toEqual([
        {
          product_seq: seq,
          position: 1,
          gid: 'gid://shopify/ProductVariant/11',
          title: '40',
          price: '19.90',
          compare_at_price: '25.00',
          sku: 'RS-40',
          available: true,
          inventory_quantity: 3,
          image_url: null,
          selected_options: [{ name: 'Size', value: '40' }],
        },
        {
          product_seq: seq,
          position: 2,
          gid: 'gid://shopify/ProductVariant/12',
          title: '41',
          price: '19.90',
          compare_at_price: null,
          sku: 'RS-41',
          available: false,
          inventory_quantity: null,
          image_url: 'https://cdn.example.com/b.jpg',
          selected_options: [{ name: 'Size', value: '41' }],
        },
      ]);
      expect(await s.imagesOf([seq!])).toEqual([
        { product_seq: seq, position: 1, url: 'https://cdn.example.com/a.jpg', alt_text: 'a red shoe', width: 800, height: 600 },
      ]);
      expect(await s.collectionsOf([seq!])).toEqual([
        { product_seq: seq, handle: 'shoes' },
        { product_seq: seq, handle: 'summer' },
      ]);
      expect(await s.byHandle(a, 'red-SHOE')).toEqual(row);
      expect(await s.bySeqs(a, [seq!])).toEqual([row]);
      expect(await s.refsBySeqs(a, [seq!])).toEqual(new Map([[seq, { gid: 'gid://shopify/Product/1', handle: 'Red-Shoe' }]]));
      expect(await s.gidsOfStore(a)).toEqual(['gid://shopify/Product/1']);
      expect(await s.variantsOf([])).toEqual([]);
      expect(await s.collectionHandles(a)).toEqual(['shoes', 'summer']);
    });

    it('updates by GID in place (same seq), replacing variants and images; sync replaces memberships, file imports add', async () => {
      const { store } = await f.create();
      const s = store.products;
      const [seq] = await s.upsertMany(a, [fullProduct()], 'sync', sync);
      const [again] = await s.upsertMany(
        a,
        [p(1, { title: 'Blue Shoe', images: [], variants: [], collections: [{ handle: 'winter', title: 'Winter', gid: null }] })],
        'json',
        file,
      );
      expect(again).toBe(seq);
      const row = (await s.bySeqs(a, [seq!]))[0]!;
      expect([row.title, row.source, row.total_inventory]).toEqual(['Blue Shoe', 'json', 0]);
      expect(await s.variantsOf([seq!])).toEqual([]);
      expect(await s.imagesOf([seq!])).toEqual([]);
      expect((await s.collectionsOf([seq!])).map((m) => m.handle)).toEqual(['shoes', 'summer', 'winter']);
      await s.upsertMany(a, [p(1, { collections: [{ handle: 'Autumn', title: 'Autumn', gid: null }] })], 'sync', sync);
      expect((await s.collectionsOf([seq!])).map((m) => m.handle)).toEqual(['autumn']);
      // a GID repeated in one batch ends as its last occurrence
      const seqs = await s.upsertMany(
        a,
        [
          p(2, { title: 'first', variants: [fullProduct().variants[0]!] }),
          p(3),
          p(2, { title: 'second', collections: [{ handle: 'x', title: 'X', gid: null }] }),
        ],
        'sync',
        sync,
      );
      expect(seqs[0]).toBe(seqs[2]);
      expect(seqs[1]).toBeGreaterThan(seqs[0]!);
      expect((await s.bySeqs(a, [seqs[0]!]))[0]!.title).toBe('second');
      expect(await s.variantsOf([seqs[0]!])).toEqual([]);
      expect(await s.collectionsOf([seqs[0]!])).toEqual([{ product_seq: seqs[0], handle: 'x' }]);
      expect(await s.upsertMany(a, [], 'sync', sync)).toEqual([]);
    });

    it('keeps every store apart: another store behaves as missing', async () => {
      const { store } = await f.create();
      const s = store.products;
      const [mine] = await s.upsertMany(a, [p(1, { handle: 'same' })], 'json', file);
      const [theirs] = await s.upsertMany(b, [p(1, { handle: 'same', title: 'B' })], 'json', file);
      await s.upsertMany(c, [p(1, { handle: 'same', title: 'C' })], 'json', file);
      expect(theirs).not.toBe(mine);
      expect((await s.byGids(a, ['gid://shopify/Product/1'])).get('gid://shopify/Product/1')!.seq).toBe(mine);
      expect((await s.byHandle(b, 'same'))!.seq).toBe(theirs);
      expect(await s.bySeqs(a, [theirs!, mine!])).toHaveLength(1);
      expect([...(await s.refsBySeqs(a, [theirs!])).keys()]).toEqual([]);
      expect((await s.browse(a, { statuses: ['ACTIVE'] }, 0, 10)).total).toBe(1);
      expect(await s.deleteByGids(a, ['gid://shopify/Product/1', 'gid://shopify/Product/1', 'gid://shopify/Product/9'])).toBe(1);
      expect(await s.gidsOfStore(b)).toEqual(['gid://shopify/Product/1']);
      expect(await s.byHandle(a, 'same')).toBeUndefined();
      expect(await s.variantsOf([mine!])).toEqual([]);
      expect(await s.collectionsOf([mine!])).toEqual([]);
    });

    it('bounds snapshots: maxSeq covers every product of the store, later ones and re-inserts get higher seqs', async () => {
      const { store } = await f.create();
      const s = store.products;
      expect(await s.maxSeq(a)).toBe(0);
      const first = await s.upsertMany(a, [p(1), p(2)], 'json', file);
      const snap = await s.maxSeq(a);
      expect(Math.max(...first)).toBeLessThanOrEqual(snap);
      await s.deleteByGids(a, ['gid://shopify/Product/1']);
      const [back] = await s.upsertMany(a, [p(1)], 'json', file);
      expect(back).toBeGreaterThan(snap);
      expect(await s.maxSeq(a)).toBeGreaterThanOrEqual(back!);
      const page = await s.browse(a, { statuses: ['ACTIVE'], maxSeq: snap }, 0, 10);
      expect(page.rows.map((r) => r.seq)).toEqual([first[1]]);
    });

    it('searchSnapshot reads a snapshot bound covering the store and the change head together', async () => {
      const { store } = await f.create();
      const s = store.products;
      expect(await s.searchSnapshot(a)).toEqual({ maxSeq: 0, changeHead: await s.changeHead() });
      const seqs = await s.upsertMany(a, [p(1), p(2)], 'json', file);
      const snap = await s.searchSnapshot(a);
      expect(snap.maxSeq).toBeGreaterThanOrEqual(Math.max(...seqs));
      expect(snap.changeHead).toBe(await s.changeHead());
      expect(snap.changeHead).toBeGreaterThan(0);
    });

    it('recentStores lists the stores holding products, the newest product first', async () => {
      const { store } = await f.create();
      const s = store.products;
      expect(await s.recentStores(5)).toEqual([]);
      await s.upsertMany(b, [p(1)], 'json', file);
      await s.upsertMany(a, [p(2)], 'json', file);
      expect(await s.recentStores(5)).toEqual([a, b]);
      await s.upsertMany(b, [p(3)], 'json', file);
      expect(await s.recentStores(5)).toEqual([b, a]);
      expect(await s.recentStores(1)).toEqual([b]);
    });

    it('browses by title (ASCII case-insensitive, then seq) under status, collection, type, snapshot and exclusion filters', async () => {
      const { store } = await f.create();
      const s = store.products;
      const col = (h: string) => [{ handle: h, title: h, gid: null }];
      const seqs = await s.upsertMany(
        a,
        [
          p(1, { title: 'banana', product_type: 'Fruit', collections: col('Yellow') }),
          p(2, { title: 'Apple', product_type: 'fruit' }),
          p(3, { title: 'cherry', status: 'DRAFT', product_type: 'FRUIT', collections: col('yellow') }),
          p(4, { title: 'apple', product_type: 'Nut' }),
          p(5, { title: 'Éclair', status: 'ARCHIVED' }),
          p(6, { title: 'zucchini', collections: col('yellow') }),
        ],
        'json',
        file,
      );
      const [s1, s2, s3, s4, s5, s6] = seqs;
      const seqsOf = async (fl: Partial<Parameters<ProductStore['browse']>[1]>, offset = 0, limit = 10) => {
        const r = await s.browse(a, { statuses: ['ACTIVE', 'DRAFT', 'ARCHIVED'], ...fl }, offset, limit);
        return { seqs: r.rows.map((x) => x.seq), total: r.total };
      };
      // NOCASE folds ASCII only: "É" sorts after every ASCII letter
      expect(await seqsOf({})).toEqual({ seqs: [s2, s4, s1, s3, s6, s5], total: 6 });
      expect(await seqsOf({}, 1, 2)).toEqual({ seqs: [s4, s1], total: 6 });
      expect(await seqsOf({ statuses: ['ACTIVE'] })).toEqual({ seqs: [s2, s4, s1, s6], total: 4 });
      expect(await seqsOf({ collection: 'YELLOW' })).toEqual({ seqs: [s1, s3, s6], total: 3 });
      expect(await seqsOf({ productType: 'fRuIt' })).toEqual({ seqs: [s2, s1, s3], total: 3 });
      expect(await seqsOf({ productType: 'fruit', statuses: ['DRAFT'] })).toEqual({ seqs: [s3], total: 1 });
      expect(await seqsOf({ maxSeq: s3, excludeSeq: s2 })).toEqual({ seqs: [s1, s3], total: 2 });
      expect(await seqsOf({ collection: 'none' })).toEqual({ seqs: [], total: 0 });
      const row = (await s.browse(a, { statuses: ['ARCHIVED'] }, 0, 1)).rows[0];
      expect(row).toEqual({ seq: s5, gid: 'gid://shopify/Product/5', handle: 'p5' });
    });

    it('ranks related products by shared collections, type and tags', async () => {
      const { store } = await f.create();
      const s = store.products;
      const col = (...h: string[]) => h.map((x) => ({ handle: x, title: x, gid: null }));
      const [src, sameCol, sameType, twoTags, nothing, draft, both] = await s.upsertMany(
        a,
        [
          p(1, { title: 'src', product_type: 'Shoes', tags: ['Red', 'leather'], collections: col('summer', 'sale') }),
          p(2, { title: 'b', collections: col('summer') }),
          p(3, { title: 'c', product_type: 'SHOES' }),
          p(4, { title: 'a', tags: ['red', 'LEATHER', 'x'] }),
          p(5, { title: 'd' }),
          p(6, { title: 'e', status: 'DRAFT', collections: col('summer', 'sale') }),
          p(7, { title: 'f', product_type: 'shoes', collections: col('sale'), tags: ['red'] }),
        ],
        'json',
        file,
      );
      await s.upsertMany(b, [p(8, { title: 'other store', product_type: 'Shoes', collections: col('summer') })], 'json', file);
      const source = (await s.bySeqs(a, [src!]))[0]!;
      const related = await s.relatedByAttributes(a, source, { statuses: ['ACTIVE'], excludeSeq: src }, 10);
      // both 3 + 2 + 1 = 6; sameCol 3; then twoTags (2, "a") before sameType (2, "c") by title
      expect(related).toEqual([both, sameCol, twoTags, sameType]);
      expect(related).not.toContain(nothing);
      expect(await s.relatedByAttributes(a, source, { statuses: ['DRAFT'] }, 10)).toEqual([draft]);
      expect(await s.relatedByAttributes(a, source, { statuses: ['ACTIVE'], excludeSeq: src }, 2)).toEqual([both, sameCol]);
    });

    it('keeps catalog_synced_at and the sync marks per store', async () => {
      const { store } = await f.create();
      const s = store.products;
      expect(await s.syncedAt(a)).toBeNull();
      expect(await s.syncState(a)).toBeUndefined();
      await s.setSyncedAt(a, AT);
      expect(await s.syncedAt(a)).toBe(AT);
      expect(await s.syncedAt(b)).toBeNull();
      await s.putSyncState(a, { updated_at_mark: '2026-01-01T00:00:00Z', deletions_mark: AT, last_full_sync_at: AT });
      await s.putSyncState(a, {
        updated_at_mark: '2026-01-02T00:00:00Z',
        deletions_mark: '2026-03-02T00:00:00.000Z',
        last_full_sync_at: null,
      });
      expect(await s.syncState(a)).toEqual({
        updated_at_mark: '2026-01-02T00:00:00Z',
        deletions_mark: '2026-03-02T00:00:00.000Z',
        last_full_sync_at: AT,
      });
      expect(await s.syncState(b)).toBeUndefined();
    });

    it('logs every write in the change log, and another process sees the writes', async () => {
      const { store, open } = await f.create();
      const s = store.products;
      const h0 = await s.changeHead();
      const [seq] = await s.upsertMany(a, [p(1)], 'json', file);
      const h1 = await s.changeHead();
      expect(h1).toBeGreaterThan(h0);
      const other = await open();
      expect((await other.products.bySeqs(a, [seq!])).map((r) => r.gid)).toEqual(['gid://shopify/Product/1']);
      expect(await other.products.changeHead()).toBe(h1);
      await other.products.upsertMany(a, [p(1, { title: 'renamed' })], 'json', file);
      expect(await s.changeHead()).toBeGreaterThan(h1);
      expect((await s.bySeqs(a, [seq!]))[0]!.title).toBe('renamed');
      const h2 = await s.changeHead();
      await other.products.deleteByGids(a, ['gid://shopify/Product/1']);
      expect(await s.changeHead()).toBeGreaterThan(h2);
      expect(await s.bySeqs(a, [seq!])).toEqual([]);
    });
  });
}
