import { describe, expect, it } from 'vitest';
import type { CatalogProductInput } from '../../domain/catalog.ts';
import { createTenant } from '../../tenancy/admin.ts';
import type { ProductStore, StoreScope } from '../ports/product-store.ts';
import type { ProductVectorStore } from '../ports/product-vectors.ts';
import { openDb } from './connection.ts';
import { createSqliteProductVectors } from './product-vectors.ts';
import { createSqliteProductStore } from './products.ts';
import { syntheticProduct } from '../synthetic-product.ts';
import { createSqliteTenancyStore } from './tenancy.ts';

const product = (n: number): CatalogProductInput => syntheticProduct(n);
const file = { at: 'x', replaceCollections: false };

/** Embed every pending product of all stores under `model` with `vec(seq)`. */
async function embedAll(products: ProductVectorStore, model: string, vec: (seq: number) => number[]): Promise<void> {
  const pending = await products.pending(null, model, 3, 10);
  await products.put(
    model,
    pending.map((r) => ({ seq: r.seq, storeId: r.store_id, sha256: r.embed_sha256, vector: new Float32Array(vec(r.seq)) })),
  );
}

describe('product nearest neighbours (in-memory partitions of product_embeddings)', () => {
  it('partitions by store and model, reads product_embeddings (not the derived vec0 table), skips zero vectors and drops deleted products', async () => {
    const db = openDb(':memory:');
    const tenancy = createSqliteTenancyStore(db);
    const a = await createTenant(tenancy, 'a');
    const b = await createTenant(tenancy, 'b');
    const sa = { tenantId: a.tenant_id, workspaceId: a.workspace_id, storeId: a.store_id };
    const sb = { tenantId: b.tenant_id, workspaceId: b.workspace_id, storeId: b.store_id };
    const products: ProductStore = createSqliteProductStore(db);
    const vectors = createSqliteProductVectors(db);
    await products.upsertMany(sa, [product(1), product(2), product(3)], 'json', file);
    await products.upsertMany(sb, [product(4)], 'json', file);
    const vecs: Record<number, number[]> = { 1: [1, 0, 0], 2: [0.9, 0.1, 0], 3: [0, 0, 0], 4: [1, 0, 0] };
    for (const model of ['m1', 'm2']) await embedAll(vectors, model, (seq) => vecs[seq]!);
    const knn = async (vs: ProductVectorStore, scope: StoreScope = sa, model = 'm1') =>
      (await vs.nearest(scope, model, new Float32Array([1, 0, 0]), 10, { statuses: ['ACTIVE'] })).map((h) => h.seq);
    expect(await knn(vectors)).toEqual([1, 2]); // store b's product 4 and the zero vector 3 are not neighbours
    expect(await knn(vectors, sb, 'm2')).toEqual([4]);
    expect(await vectors.nearest(sa, 'm1', new Float32Array(3), 10, { statuses: ['ACTIVE'] })).toEqual([]);

    db.exec('DROP TABLE product_vec_f3');
    expect(await knn(createSqliteProductVectors(db))).toEqual([1, 2]); // loaded from product_embeddings

    await products.deleteByGids(sa, ['gid://shopify/Product/1']);
    expect(await knn(vectors)).toEqual([2]);
    // a status change (logged by trigger) takes effect in the next scan of every reader
    const other = createSqliteProductVectors(db);
    expect(await knn(other)).toEqual([2]);
    db.prepare("UPDATE products SET status = 'DRAFT' WHERE seq = 2").run();
    expect(await knn(vectors)).toEqual([]);
    expect(await knn(other)).toEqual([]);
    expect((await vectors.nearest(sa, 'm1', new Float32Array([1, 0, 0]), 10, { statuses: ['DRAFT'] })).map((h) => h.seq)).toEqual([2]);
    expect(await vectors.count(sa, 'm1', 3)).toBe(2); // products 2 and 3 (zero vector) under m1
    db.close();
  });

  it('takes the change-log head a request read: answers as of it without reading the log, and never goes back for an older one', async () => {
    const db = openDb(':memory:');
    const t = await createTenant(createSqliteTenancyStore(db), 't');
    const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id, storeId: t.store_id };
    const products = createSqliteProductStore(db);
    const vectors = createSqliteProductVectors(db);
    await products.upsertMany(scope, [product(1), product(2)], 'json', file);
    await embedAll(vectors, 'm1', () => [1, 0, 0]);
    const knn = async (head?: number): Promise<number[]> =>
      (await vectors.nearest(scope, 'm1', new Float32Array([1, 0, 0]), 10, { statuses: ['ACTIVE'] }, head)).map((h) => h.seq);
    const before = (await products.searchSnapshot(scope)).changeHead;
    expect(await knn(before)).toEqual([1, 2]);
    // a write (logged by trigger): a product leaves ACTIVE
    db.prepare("UPDATE products SET status = 'DRAFT' WHERE seq = 2").run();
    // a request that read its head before that write answers without it (no log read of its own) …
    expect(await knn(before)).toEqual([1, 2]);
    expect(await vectors.count(scope, 'm1', 3, before)).toBe(2);
    // … one that read it after sees it, and the older head never takes the partition back
    const after = (await products.searchSnapshot(scope)).changeHead;
    expect(after).toBeGreaterThan(before);
    expect(await knn(after)).toEqual([1]);
    expect(await knn(before)).toEqual([1]);
    expect(await knn()).toEqual([1]);
    db.close();
  });
});
