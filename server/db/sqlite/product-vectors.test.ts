import { describe, expect, it } from 'vitest';
import type { CatalogProductInput } from '../../domain/catalog.ts';
import { createTenant } from '../../tenancy/admin.ts';
import { openDb } from './connection.ts';
import { createProductQueries } from './products.ts';
import { syntheticProduct } from '../synthetic-product.ts';
import { createSqliteTenancyStore } from './tenancy.ts';

const product = (n: number): CatalogProductInput => syntheticProduct(n);

describe('product nearest neighbours (in-memory partitions of product_embeddings)', () => {
  it('partitions by store and model, reads product_embeddings (not the derived vec0 table), skips zero vectors and drops deleted products', async () => {
    const db = openDb(':memory:');
    const tenancy = createSqliteTenancyStore(db);
    const a = await createTenant(tenancy, 'a');
    const b = await createTenant(tenancy, 'b');
    const sa = { tenantId: a.tenant_id, workspaceId: a.workspace_id, storeId: a.store_id };
    const sb = { tenantId: b.tenant_id, workspaceId: b.workspace_id, storeId: b.store_id };
    const q = createProductQueries(db);
    q.upsertMany(sa, [product(1), product(2), product(3)], 'json', { at: 'x', replaceCollections: false });
    q.upsertMany(sb, [product(4)], 'json', { at: 'x', replaceCollections: false });
    const vecs: Record<number, number[]> = { 1: [1, 0, 0], 2: [0.9, 0.1, 0], 3: [0, 0, 0], 4: [1, 0, 0] };
    for (const model of ['m1', 'm2']) {
      q.putEmbeddings(
        model,
        q
          .pendingEmbeddings(null, model, 3, 10)
          .map((r) => ({ seq: r.seq, storeId: r.store_id, sha256: r.embed_sha256, vector: new Float32Array(vecs[r.seq]!) })),
      );
    }
    const knn = (qs: ReturnType<typeof createProductQueries>, scope = sa, model = 'm1') =>
      qs.knn(scope, model, new Float32Array([1, 0, 0]), { statuses: ['ACTIVE'] }, 10).map((h) => h.seq);
    expect(knn(q)).toEqual([1, 2]); // store b's product 4 and the zero vector 3 are not neighbours
    expect(knn(q, sb, 'm2')).toEqual([4]);
    expect(q.knn(sa, 'm1', new Float32Array(3), { statuses: ['ACTIVE'] }, 10)).toEqual([]);

    db.exec('DROP TABLE product_vec_f3');
    expect(knn(createProductQueries(db))).toEqual([1, 2]); // loaded from product_embeddings

    q.deleteByGids(sa, ['gid://shopify/Product/1']);
    expect(knn(q)).toEqual([2]);
    // a status change (logged by trigger) takes effect in the next scan of every reader
    const other = createProductQueries(db);
    expect(knn(other)).toEqual([2]);
    db.prepare("UPDATE products SET status = 'DRAFT' WHERE seq = 2").run();
    expect(knn(q)).toEqual([]);
    expect(knn(other)).toEqual([]);
    expect(q.knn(sa, 'm1', new Float32Array([1, 0, 0]), { statuses: ['DRAFT'] }, 10).map((h) => h.seq)).toEqual([2]);
    expect(q.embeddingCount(sa, 'm1', 3)).toBe(2); // products 2 and 3 (zero vector) under m1
    db.close();
  });

  it('takes the change-log head a request read: answers as of it without reading the log, and never goes back for an older one', async () => {
    const db = openDb(':memory:');
    const t = await createTenant(createSqliteTenancyStore(db), 't');
    const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id, storeId: t.store_id };
    const q = createProductQueries(db);
    q.upsertMany(scope, [product(1), product(2)], 'json', { at: 'x', replaceCollections: false });
    const embed = (): void =>
      q.putEmbeddings(
        'm1',
        q
          .pendingEmbeddings(null, 'm1', 3, 10)
          .map((r) => ({ seq: r.seq, storeId: r.store_id, sha256: r.embed_sha256, vector: new Float32Array([1, 0, 0]) })),
      );
    embed();
    const knn = (head?: number): number[] =>
      q.knn(scope, 'm1', new Float32Array([1, 0, 0]), { statuses: ['ACTIVE'] }, 10, head).map((h) => h.seq);
    const before = q.searchSnapshot(scope).changeHead;
    expect(knn(before)).toEqual([1, 2]);
    // a write (logged by trigger): a product leaves ACTIVE
    db.prepare("UPDATE products SET status = 'DRAFT' WHERE seq = 2").run();
    // a request that read its head before that write answers without it (no log read of its own) …
    expect(knn(before)).toEqual([1, 2]);
    expect(q.embeddingCount(scope, 'm1', 3, before)).toBe(2);
    // … one that read it after sees it, and the older head never takes the partition back
    const after = q.searchSnapshot(scope).changeHead;
    expect(after).toBeGreaterThan(before);
    expect(knn(after)).toEqual([1]);
    expect(knn(before)).toEqual([1]);
    expect(knn()).toEqual([1]);
    db.close();
  });
});
