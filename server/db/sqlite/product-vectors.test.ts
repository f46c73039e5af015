import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CatalogProductInput } from '../../domain/catalog.ts';
import { createTenant } from '../../tenancy/admin.ts';
import type { ProductStore, StoreScope } from '../ports/product-store.ts';
import type { ProductVectorStore } from '../ports/product-vectors.ts';
import { openDb, type Database } from './connection.ts';
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

/** Tables (and vec0 shadow tables) named like the retired product vec0 tables. */
const productVecTables = (db: Database): string[] =>
  db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'product_vec_f%' ORDER BY name").pluck().all() as string[];

describe('product nearest neighbours (in-memory partitions of product_embeddings)', () => {
  it('partitions by store and model, reads product_embeddings only, skips zero vectors and drops deleted products', async () => {
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

    // product_embeddings is the only stored copy: no sqlite-vec table was made, a new reader loads from it
    expect(productVecTables(db)).toEqual([]);
    expect(await knn(createSqliteProductVectors(db))).toEqual([1, 2]);

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

  it('drops the product vec0 tables of an existing database on open, and keeps product_embeddings', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-product-vec0-'));
    const dbFile = path.join(dir, 'atelier.db');
    try {
      let db = openDb(dbFile);
      const t = await createTenant(createSqliteTenancyStore(db), 't');
      const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id, storeId: t.store_id };
      await createSqliteProductStore(db).upsertMany(scope, [product(1), product(2)], 'json', file);
      await embedAll(createSqliteProductVectors(db), 'm1', (seq) => [1, 0, seq]);
      // the tables as earlier versions made them (product-vec0-tables.ts), with a row each
      for (const dims of [3, 8]) {
        db.exec(
          `CREATE VIRTUAL TABLE product_vec_f${dims} USING vec0(part text partition key, embedding float[${dims}] distance_metric=cosine)`,
        );
        db.prepare(`INSERT INTO product_vec_f${dims} (rowid, part, embedding) VALUES (1, ?, ?)`).run(
          `${scope.storeId}|m1`,
          Buffer.from(new Float32Array(dims).fill(1).buffer),
        );
      }
      expect(productVecTables(db)).toContain('product_vec_f3_chunks'); // shadow tables exist too
      db.close();

      db = openDb(dbFile);
      expect(productVecTables(db)).toEqual([]);
      expect(db.prepare('SELECT count(*) FROM product_embeddings').pluck().get()).toBe(2);
      const hits = await createSqliteProductVectors(db).nearest(scope, 'm1', new Float32Array([1, 0, 1]), 10, { statuses: ['ACTIVE'] });
      expect(hits.map((h) => h.seq)).toEqual([1, 2]);
      db.close();
      openDb(dbFile).close(); // nothing left to drop: opens as before
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
