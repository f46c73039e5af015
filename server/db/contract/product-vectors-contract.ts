import { describe, expect, it } from 'vitest';
import type { ProductFilters } from '../ports/product-store.ts';
import { syntheticProduct } from '../synthetic-product.ts';
import { CATALOG_SCOPES, type CatalogStores, type CatalogStoresFixture } from './product-store-contract.ts';

const { a, b } = CATALOG_SCOPES;
const file = { at: '2026-03-01T10:00:00.123Z', replaceCollections: false };
const p = syntheticProduct;
/** A unit vector at `angle` radians in the first plane of 4 dimensions. */
const at = (angle: number): Float32Array => Float32Array.of(Math.cos(angle), Math.sin(angle), 0, 0);

/** Embed every pending product of all stores under `model` with `vec(seq)`. */
async function embedAll(s: CatalogStores, model: string, vec: (seq: number) => Float32Array, dims = 4): Promise<void> {
  const pending = await s.vectors.pending(null, model, dims, 1000);
  await s.vectors.put(
    model,
    pending.map((r) => ({ seq: r.seq, storeId: r.store_id, sha256: r.embed_sha256, vector: vec(r.seq) })),
  );
}

/**
 * The behaviour every `ProductVectorStore` must have, as vitest cases: pending and stale products,
 * exact storage, store and model partitions, KNN with the `list_products` filters applied inside the
 * search, zero vectors, deleted products, and a second process seeing the vectors.
 */
export function productVectorsContract(name: string, f: CatalogStoresFixture): void {
  describe(`ProductVectorStore contract: ${name}`, () => {
    it('lists pending products per model and length, stores vectors exactly, and goes stale when the text changes', async () => {
      const { store: s } = await f.create();
      expect(await s.vectors.available()).toEqual({ ok: true });
      const [one, two] = await s.products.upsertMany(a, [p(1), p(2)], 'json', file);
      const [theirs] = await s.products.upsertMany(b, [p(3)], 'json', file);
      const pending = await s.vectors.pending(null, 'm', 4, 10);
      expect(pending.map((r) => [r.seq, r.store_id])).toEqual([
        [one, 'store-a'],
        [two, 'store-a'],
        [theirs, 'store-b'],
      ]);
      expect(pending[0]!.embed_text).toBe('P1');
      expect((await s.vectors.pending('store-a', 'm', 4, 1)).map((r) => r.seq)).toEqual([one]);
      const odd = Float32Array.of(0.1, -1e-7, 340282.34663852886, 1 / 3);
      await s.vectors.put('m', [{ seq: one!, storeId: 'store-a', sha256: pending[0]!.embed_sha256, vector: odd }]);
      expect(await s.vectors.get(a, one!, 'm', 4)).toEqual(odd);
      expect(await s.vectors.get(b, one!, 'm', 4)).toBeNull();
      expect(await s.vectors.get(a, one!, 'm', 3)).toBeNull();
      expect(await s.vectors.get(a, one!, 'other', 4)).toBeNull();
      expect((await s.vectors.pending(null, 'm', 4, 10)).map((r) => r.seq)).toEqual([two, theirs]);
      // another length or model: everything pending again
      expect((await s.vectors.pending(null, 'm', 3, 10)).map((r) => r.seq)).toEqual([one, two, theirs]);
      expect((await s.vectors.pending('store-a', 'm2', 4, 10)).map((r) => r.seq)).toEqual([one, two]);
      await s.products.upsertMany(a, [p(1, { title: 'changed' })], 'json', file);
      expect((await s.vectors.pending('store-a', 'm', 4, 10)).map((r) => r.seq)).toEqual([one, two]);
      // a product deleted since `pending` is skipped
      await s.products.deleteByGids(a, ['gid://shopify/Product/2']);
      await s.vectors.put('m', [{ seq: two!, storeId: 'store-a', sha256: pending[1]!.embed_sha256, vector: at(0) }]);
      expect(await s.vectors.count(a, 'm', 4)).toBe(1);
    });

    it('counts and samples per store and model in a fixed pseudo-random order', async () => {
      const { store: s } = await f.create();
      const mine = await s.products.upsertMany(
        a,
        Array.from({ length: 12 }, (_, i) => p(i + 1)),
        'json',
        file,
      );
      await s.products.upsertMany(b, [p(50)], 'json', file);
      await embedAll(s, 'm', (seq) => at(seq / 10));
      expect(await s.vectors.count(a, 'm', 4)).toBe(12);
      expect(await s.vectors.count(b, 'm', 4)).toBe(1);
      expect(await s.vectors.count(a, 'other', 4)).toBe(0);
      const sample = await s.vectors.sample(a, 'm', 4, 5);
      const hash = (q: number): number => Number((BigInt(q) * 2654435761n) % 4294967296n);
      const expected = [...mine].sort((x, y) => hash(x) - hash(y) || x - y).slice(0, 5);
      expect(sample.map((r) => r.seq)).toEqual(expected);
      expect(sample[0]!.text).toBe(`P${mine.indexOf(expected[0]!) + 1}`);
      expect(sample[0]!.vector).toEqual(at(expected[0]! / 10));
    });

    it('returns the k nearest products of the store and model by cosine, nearest first, never a zero vector', async () => {
      const { store: s } = await f.create();
      const angles = [0.9, 0.1, 0.5, 1.3, 0.3, 2.5];
      const seqs = await s.products.upsertMany(
        a,
        angles.map((_, i) => p(i + 1)),
        'json',
        file,
      );
      const [zero] = await s.products.upsertMany(a, [p(20)], 'json', file);
      const [theirs] = await s.products.upsertMany(b, [p(30)], 'json', file);
      const angleOf = new Map(seqs.map((q, i) => [q, angles[i]!]));
      // lengths differ: cosine ignores them
      await embedAll(s, 'm', (q) => (q === zero ? new Float32Array(4) : at(angleOf.get(q) ?? 0).map((x) => x * (1 + q))));
      await embedAll(s, 'm2', (q) => at(q === seqs[5] ? 0 : 3));
      const all: ProductFilters = { statuses: ['ACTIVE'] };
      const q = at(0);
      const byAngle = [...angleOf].sort((x, y) => x[1] - y[1]).map(([seq]) => seq);
      const hits = await s.vectors.nearest(a, 'm', q, 3, all);
      expect(hits.map((h) => h.seq)).toEqual(byAngle.slice(0, 3));
      for (const h of hits) expect(h.distance).toBeCloseTo(1 - Math.cos(angleOf.get(h.seq)!), 4);
      expect((await s.vectors.nearest(a, 'm', q, 50, all)).map((h) => h.seq)).toEqual(byAngle);
      expect(await s.vectors.count(a, 'm', 4)).toBe(7);
      expect((await s.vectors.nearest(a, 'm2', q, 1, all)).map((h) => h.seq)).toEqual([seqs[5]]);
      expect((await s.vectors.nearest(b, 'm', q, 5, all)).map((h) => h.seq)).toEqual([theirs]);
      expect(await s.vectors.nearest(a, 'm', new Float32Array(4), 5, all)).toEqual([]);
      expect(await s.vectors.nearest(a, 'm', q, 0, all)).toEqual([]);
      expect(await s.vectors.nearest(a, 'unknown', q, 5, all)).toEqual([]);
      // a deleted product is gone from the search
      await s.products.deleteByGids(a, [`gid://shopify/Product/2`]);
      expect((await s.vectors.nearest(a, 'm', q, 2, all)).map((h) => h.seq)).toEqual(byAngle.filter((x) => x !== seqs[1]).slice(0, 2));
    });

    it('applies every list_products filter inside the search: k hits when k products pass, however many nearer ones fail', async () => {
      const { store: s } = await f.create();
      const col = [{ handle: 'Sale', title: 'Sale', gid: null }];
      const near = await s.products.upsertMany(
        a,
        Array.from({ length: 12 }, (_, i) => p(i + 1)),
        'json',
        file,
      );
      const [draft, typed, inSale, typedSale] = await s.products.upsertMany(
        a,
        [
          p(20, { status: 'DRAFT' }),
          p(21, { product_type: 'Shoes' }),
          p(22, { collections: col }),
          p(23, { product_type: 'shoes', collections: col }),
        ],
        'json',
        file,
      );
      const angle = new Map<number, number>([
        ...near.map((q, i): [number, number] => [q, i / 100]),
        [draft!, 1.0],
        [typed!, 1.1],
        [inSale!, 1.2],
        [typedSale!, 1.3],
      ]);
      await embedAll(s, 'm', (q) => at(angle.get(q)!));
      const seqsOf = async (fl: Partial<ProductFilters>, k = 2): Promise<number[]> =>
        (await s.vectors.nearest(a, 'm', at(0), k, { statuses: ['ACTIVE'], ...fl })).map((h) => h.seq);
      expect(await seqsOf({ statuses: ['DRAFT'] })).toEqual([draft]);
      expect(await seqsOf({ statuses: ['DRAFT', 'ARCHIVED'] }, 5)).toEqual([draft]);
      expect(await seqsOf({ productType: 'SHOES' })).toEqual([typed, typedSale]);
      expect(await seqsOf({ collection: 'sale' })).toEqual([inSale, typedSale]);
      expect(await seqsOf({ collection: 'sale', productType: 'Shoes' })).toEqual([typedSale]);
      expect(await seqsOf({ productType: 'shoes', maxSeq: typed })).toEqual([typed]);
      expect(await seqsOf({ collection: 'sale', excludeSeq: inSale })).toEqual([typedSale]);
      expect(await seqsOf({ excludeSeq: near[0] }, 1)).toEqual([near[1]]);
      expect(await seqsOf({ productType: 'Hats' })).toEqual([]);
      expect(await seqsOf({ collection: 'none' })).toEqual([]);
    });

    it('shows vectors written by another process to this one, updated and deleted', async () => {
      const { store: s, open } = await f.create();
      const seqs = await s.products.upsertMany(a, [p(1), p(2), p(3)], 'json', file);
      const all: ProductFilters = { statuses: ['ACTIVE'] };
      await embedAll(s, 'm', (q) => at(q === seqs[0] ? 0 : 1));
      expect((await s.vectors.nearest(a, 'm', at(0), 1, all)).map((h) => h.seq)).toEqual([seqs[0]]);
      const other = await open();
      const pending = await other.vectors.pending('store-a', 'm', 4, 10);
      expect(pending).toEqual([]);
      const [row] = await other.products.bySeqs(a, [seqs[2]!]);
      await other.vectors.put('m', [{ seq: seqs[2]!, storeId: 'store-a', sha256: row!.embed_sha256, vector: at(0.01) }]);
      await other.products.upsertMany(a, [p(1, { status: 'ARCHIVED' })], 'json', file);
      expect((await s.vectors.nearest(a, 'm', at(0), 1, all)).map((h) => h.seq)).toEqual([seqs[2]]);
      await other.products.deleteByGids(a, ['gid://shopify/Product/3']);
      expect((await s.vectors.nearest(a, 'm', at(0), 5, all)).map((h) => h.seq)).toEqual([seqs[1]]);
    });
  });
}
