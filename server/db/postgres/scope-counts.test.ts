import { describe, expect, it } from 'vitest';
import { contractAsset, CONTRACT_SCOPE, OTHER_TENANT, OTHER_WORKSPACE } from '../contract/fixture.ts';
import { pgliteServerPerSuite, schemasPerCase, seedPgContractScopes } from '../contract/pg-schemas.ts';
import type { Scope } from '../../domain/scope.ts';
import { syntheticProduct } from '../synthetic-product.ts';
import { createPgAssetStore } from './assets.ts';
import { createPgLexicalIndexes } from './lexical-index.ts';
import { loadPgMigrations, migratePostgres } from './migrate.ts';
import type { PgPool } from './pool.ts';
import { createPgProductLexicalIndexes } from './product-lexical-index.ts';
import { createPgProductStore } from './products.ts';
import { createTestSchema } from '../contract/pg-test-database.ts';
import { createPgVectorStore } from './vector-store.ts';

// The scope counts of migrations 0012 and 0013 (asset_counts, product_counts, asset_vector_counts), which the
// lexical indexes' `size` and the vector store's `count` and partition size read instead of counting
// rows: after every kind of write, from two processes (two pools), they equal a count of the rows.
const schemas = schemasPerCase();

async function seeded(): Promise<{ pool: PgPool; other: PgPool }> {
  const schema = await schemas.create();
  const pool = schema.pool();
  await seedPgContractScopes(pool);
  return { pool, other: schema.pool() };
}

/** Every non-zero count row against the rows' own grouping (sorted JSON, so `toEqual` shows the difference). */
async function countsAndTruth(pool: PgPool, counts: string, truth: string): Promise<[unknown[], unknown[]]> {
  const rows = async (sql: string) => (await pool.query(sql)).rows.map((r) => JSON.stringify(r)).sort();
  return [await rows(counts), await rows(truth)];
}
const assetCounts = (pool: PgPool) =>
  countsAndTruth(
    pool,
    'SELECT workspace_id, tenant_id, assets::int AS n FROM asset_counts WHERE assets <> 0',
    'SELECT workspace_id, tenant_id, count(*)::int AS n FROM assets GROUP BY 1, 2',
  );

/** `size()` of a fresh index (as a new request builds it) and the rows it stands for, counted. */
async function sizeAndCount(pool: PgPool, scope: Scope, maxSeq?: number): Promise<[number, number]> {
  const size = await createPgLexicalIndexes(pool)
    .assets(scope, maxSeq === undefined ? {} : { maxSeq })
    .size();
  const r = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM assets WHERE tenant_id = $1 AND workspace_id = $2 AND seq <= $3',
    [scope.tenantId, scope.workspaceId, maxSeq ?? Number.MAX_SAFE_INTEGER],
  );
  return [size, r.rows[0]!.n];
}

describe('PostgreSQL scope counts (migration 0012)', () => {
  it('asset counts follow inserts from two processes, multi-row statements, deletes, a rollback and a move; size keeps the snapshot bound', async () => {
    const { pool, other } = await seeded();
    const mine = createPgAssetStore(pool);
    const theirs = createPgAssetStore(other);
    // two processes inserting into the same workspaces at once
    const seqs = (
      await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          (i % 2 ? theirs : mine).insert(contractAsset({}, i % 3 === 0 ? OTHER_WORKSPACE : i % 5 === 0 ? OTHER_TENANT : CONTRACT_SCOPE)),
        ),
      )
    ).sort((a, b) => a - b);
    const snapshot = seqs[11]!;
    await pool.query(
      `INSERT INTO assets (id, tenant_id, workspace_id, kind, format, mime_type, size_bytes, sha256, source_sha256, name, source, created_at)
       SELECT gen_random_uuid()::text, 'tenant-a', CASE WHEN i % 4 = 0 THEN 'ws-b' ELSE 'ws-a' END, 'image', 'png', 'image/png', 1,
         'bulk' || i, 'bulk' || i, 'a.png', 'seed', now()
       FROM generate_series(1, 40) i`,
    );
    for (const scope of [CONTRACT_SCOPE, OTHER_WORKSPACE, OTHER_TENANT]) {
      for (const maxSeq of [undefined, snapshot]) {
        const [size, count] = await sizeAndCount(other, scope, maxSeq);
        expect(size).toBe(count);
      }
    }
    // a forged scope (a tenant that does not own the workspace) holds nothing
    expect(await sizeAndCount(pool, { tenantId: 'tenant-b', workspaceId: 'ws-a' })).toEqual([0, 0]);

    // deletes by the port and by a statement, from both processes at once
    await Promise.all([
      mine.deleteMany(CONTRACT_SCOPE, seqs.slice(0, 6)),
      other.query(`DELETE FROM assets WHERE workspace_id = 'ws-a' AND sha256 LIKE 'bulk1%'`),
    ]);
    // rolled-back writes leave the counts
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(`DELETE FROM assets WHERE workspace_id = 'ws-b'`);
      await c.query(`UPDATE assets SET workspace_id = 'ws-b' WHERE workspace_id = 'ws-a'`);
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    await expect(theirs.insert({ ...contractAsset({}, OTHER_WORKSPACE), workspace_id: 'no-such-workspace' })).rejects.toThrow();
    // an asset moved to another workspace (nothing does this today) moves its count
    await pool.query(`UPDATE assets SET workspace_id = 'ws-b' WHERE seq = $1`, [seqs[20]]);
    const [counts, truth] = await assetCounts(pool);
    expect(counts).toEqual(truth);
    for (const scope of [CONTRACT_SCOPE, OTHER_WORKSPACE]) {
      for (const maxSeq of [undefined, snapshot, seqs[0]! - 1]) {
        const [size, count] = await sizeAndCount(other, scope, maxSeq);
        expect(size).toBe(count);
      }
    }

    // a deleted workspace takes its count with it; its tenant's other workspace keeps its own
    await pool.query(`DELETE FROM workspaces WHERE id = 'ws-b'`);
    expect((await pool.query(`SELECT count(*)::int AS n FROM asset_counts WHERE workspace_id = 'ws-b'`)).rows[0]).toEqual({ n: 0 });
    const [after, afterTruth] = await assetCounts(pool);
    expect(after).toEqual(afterTruth);
  });

  it('product counts follow upserts, re-inserts and deletes from two processes; size keeps the snapshot bound', async () => {
    const { pool, other } = await seeded();
    const stores = [
      ['store-a', 'tenant-a', 'ws-a'],
      ['store-b', 'tenant-b', 'ws-c'],
    ];
    for (const [id, t, w] of stores)
      await pool.query('INSERT INTO stores (id, tenant_id, workspace_id, name, created_at) VALUES ($1, $2, $3, $1, now())', [id, t, w]);
    const a = { tenantId: 'tenant-a', workspaceId: 'ws-a', storeId: 'store-a' };
    const b = { tenantId: 'tenant-b', workspaceId: 'ws-c', storeId: 'store-b' };
    const opts = { at: new Date().toISOString(), replaceCollections: false };
    const mine = createPgProductStore(pool);
    const theirs = createPgProductStore(other);
    const batch = (from: number, n: number) => Array.from({ length: n }, (_, i) => syntheticProduct(from + i));
    await Promise.all([mine.upsertMany(a, batch(1, 30), 'json', opts), theirs.upsertMany(a, batch(20, 30), 'json', opts)]);
    const snapshot = await mine.maxSeq(a);
    await Promise.all([
      mine.upsertMany(b, batch(1, 5), 'json', opts),
      theirs.deleteByGids(
        a,
        batch(1, 10).map((p) => p.gid),
      ),
    ]);
    // updates keep the count; a deleted product upserted again counts once, with a new seq
    await Promise.all([
      mine.upsertMany(a, batch(1, 12), 'json', opts),
      theirs.deleteByGids(
        a,
        batch(40, 5).map((p) => p.gid),
      ),
    ]);
    const [counts, truth] = await countsAndTruth(
      pool,
      'SELECT store_id, products::int AS n FROM product_counts WHERE products <> 0',
      'SELECT store_id, count(*)::int AS n FROM products GROUP BY 1',
    );
    expect(counts).toEqual(truth);
    for (const [scope, maxSeq] of [
      [a, undefined],
      [a, snapshot],
      [b, snapshot],
      [b, undefined],
    ] as const) {
      const size = await createPgProductLexicalIndexes(other)
        .products(scope, { statuses: ['ACTIVE'], maxSeq })
        .size();
      const r = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM products WHERE store_id = $1 AND seq <= $2', [
        scope.storeId,
        maxSeq ?? Number.MAX_SAFE_INTEGER,
      ]);
      expect([scope.storeId, maxSeq, size]).toEqual([scope.storeId, maxSeq, r.rows[0]!.n]);
    }
    await pool.query(`DELETE FROM stores WHERE id = 'store-b'`);
    expect((await pool.query(`SELECT count(*)::int AS n FROM product_counts WHERE store_id = 'store-b'`)).rows[0]).toEqual({ n: 0 });
  });

  it('a product delete waits for a batch holding the store (no deadlock on the count row)', async () => {
    const schema = await schemas.create();
    const pool = schema.pool();
    await seedPgContractScopes(pool);
    await pool.query(
      `INSERT INTO stores (id, tenant_id, workspace_id, name, created_at) VALUES ('store-a', 'tenant-a', 'ws-a', 's', now())`,
    );
    const a = { tenantId: 'tenant-a', workspaceId: 'ws-a', storeId: 'store-a' };
    const opts = { at: new Date().toISOString(), replaceCollections: false };
    await createPgProductStore(pool).upsertMany(a, [syntheticProduct(1)], 'json', opts);
    // a batch as writeBatch runs it: the store's row, a new product (its statement takes the count row), then an existing one
    const batch = await pool.connect();
    const other = schema.pool(1);
    const pid = (await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    try {
      await batch.query('BEGIN');
      await batch.query(`SELECT 1 FROM stores WHERE id = 'store-a' FOR NO KEY UPDATE`);
      await batch.query(`INSERT INTO products (store_id, gid, handle, title, status, source, synced_at, lexical_vector)
        VALUES ('store-a', 'gid://shopify/Product/2', 'p2', 'P2', 'ACTIVE', 'json', now(), '')`);
      const deleted = createPgProductStore(other).deleteByGids(a, ['gid://shopify/Product/1']);
      // the other process's delete is waiting for a lock (the store's row; without it, the count row)
      for (;;) {
        const w = await pool.query<{ w: string | null }>('SELECT wait_event_type AS w FROM pg_stat_activity WHERE pid = $1', [pid]);
        if (w.rows[0]?.w === 'Lock') break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const updated = await batch.query(`UPDATE products SET title = 'P1 again' WHERE gid = 'gid://shopify/Product/1'`);
      await batch.query('COMMIT');
      expect(updated.rowCount).toBe(1);
      expect(await deleted).toBe(1);
    } finally {
      batch.release();
    }
    expect((await pool.query('SELECT products::int AS n FROM product_counts')).rows).toEqual([{ n: 1 }]);
  });

  it('counts the assets and products that exist before the migration', async () => {
    const schema = schemas.track(await createTestSchema({ migrate: false }));
    const pool = schema.pool();
    const all = loadPgMigrations();
    // 0020 too: today's asset store writes the public blob keys it adds
    const early = (v: number): boolean => v < 12 || v === 20;
    await migratePostgres(
      pool,
      all.filter((m) => early(m.version)),
    );
    await seedPgContractScopes(pool);
    await pool.query(
      `INSERT INTO stores (id, tenant_id, workspace_id, name, created_at) VALUES ('store-a', 'tenant-a', 'ws-a', 's', now())`,
    );
    const assets = createPgAssetStore(pool);
    for (const s of [CONTRACT_SCOPE, CONTRACT_SCOPE, OTHER_WORKSPACE]) await assets.insert(contractAsset({}, s));
    await createPgProductStore(pool).upsertMany(
      { tenantId: 'tenant-a', workspaceId: 'ws-a', storeId: 'store-a' },
      [syntheticProduct(1), syntheticProduct(2)],
      'json',
      { at: new Date().toISOString(), replaceCollections: false },
    );
    expect(await migratePostgres(pool)).toEqual(all.filter((m) => !early(m.version)).map((m) => m.version));
    const [counts, truth] = await assetCounts(pool);
    expect(counts).toEqual(truth);
    expect(counts).toHaveLength(2);
    expect((await pool.query('SELECT store_id, products::int AS n FROM product_counts')).rows).toEqual([{ store_id: 'store-a', n: 2 }]);
  });
});

describe('PostgreSQL vector counts (migration 0013, PGlite with pgvector)', () => {
  const server = pgliteServerPerSuite();

  const v = (x: number): Float32Array => Float32Array.from([1, x, 0, 0]);
  /** the count rows of a space against the rows of its table */
  const vectorCounts = (pool: PgPool, space: number) =>
    countsAndTruth(
      pool,
      `SELECT workspace_id, vectors::int AS n FROM asset_vector_counts WHERE space_id = ${space} AND vectors <> 0`,
      `SELECT workspace_id, count(*)::int AS n FROM asset_vectors_${space} GROUP BY 1`,
    );

  it('vector counts follow puts, replaces, removes and deleted assets from two processes, and a retire', async () => {
    const schema = schemas.track(await server.schema());
    const pool = schema.pool();
    await seedPgContractScopes(pool);
    const mine = createPgVectorStore(pool);
    const theirs = createPgVectorStore(schema.pool());
    const assets = createPgAssetStore(pool);
    const space = await mine.ensureSpace('asset_text', 'm', 4, 'ready');
    const seqs: number[] = [];
    for (let i = 0; i < 12; i++) seqs.push(await assets.insert(contractAsset({}, i % 3 ? CONTRACT_SCOPE : OTHER_WORKSPACE)));
    const scopeOf = (i: number) => (i % 3 ? CONTRACT_SCOPE : OTHER_WORKSPACE);
    for (const [i, seq] of seqs.entries()) await (i % 2 ? theirs : mine).put(scopeOf(i), space, seq, v(i));
    await mine.put(scopeOf(1), space, seqs[1]!, v(9)); // a replacement counts once
    await theirs.remove(scopeOf(2), space, seqs[2]!);
    await assets.deleteMany(CONTRACT_SCOPE, [seqs[4]!, seqs[5]!]);
    const [counts, truth] = await vectorCounts(pool, space.id);
    expect(counts).toEqual(truth);
    expect(await theirs.count(CONTRACT_SCOPE, space)).toBe(5);
    expect(await theirs.count(OTHER_WORKSPACE, space)).toBe(4);
    expect(await theirs.count({ tenantId: 'tenant-b', workspaceId: 'ws-a' }, space)).toBe(0);
    // the partition size of `nearest` picks the HNSW path past exactScanMax: the same hits either way
    const small = createPgVectorStore(pool, { exactScanMax: 4 });
    expect((await small.nearest(CONTRACT_SCOPE, space, v(1), 3, {})).map((h) => h.seq)).toEqual(
      (await mine.nearest(CONTRACT_SCOPE, space, v(1), 3, {})).map((h) => h.seq),
    );
    await mine.retire(space);
    expect((await pool.query('SELECT count(*)::int AS n FROM asset_vector_counts WHERE space_id = $1', [space.id])).rows[0]).toEqual({
      n: 0,
    });
    const revived = await theirs.ensureSpace('asset_text', 'm', 4, 'ready');
    expect(await mine.count(CONTRACT_SCOPE, revived)).toBe(0);
    await mine.put(CONTRACT_SCOPE, revived, seqs[1]!, v(1));
    expect(await theirs.count(CONTRACT_SCOPE, revived)).toBe(1);
  });

  it('ensureSpace attaches the counts to a space table that has none (written before migration 0013) and counts its rows', async () => {
    const schema = schemas.track(await server.schema());
    const pool = schema.pool();
    await seedPgContractScopes(pool);
    const assets = createPgAssetStore(pool);
    const seqs = [
      await assets.insert(contractAsset()),
      await assets.insert(contractAsset()),
      await assets.insert(contractAsset({}, OTHER_WORKSPACE)),
    ];
    // the space and its table as the store wrote them before the migration
    const id = (
      await pool.query<{ id: number }>(
        `INSERT INTO vector_spaces (purpose, model_id, dimensions, status, created_at) VALUES ('asset_text', 'm', 4, 'ready', now()) RETURNING id`,
      )
    ).rows[0]!.id;
    await pool.query(
      `CREATE TABLE asset_vectors_${id} (asset_seq bigint PRIMARY KEY REFERENCES assets (seq) ON DELETE CASCADE,
         workspace_id text COLLATE "C" NOT NULL, embedding public.vector(4) NOT NULL)`,
    );
    await pool.query(
      `INSERT INTO asset_vectors_${id} (asset_seq, workspace_id, embedding) SELECT seq, workspace_id, '[1,0,0,0]' FROM assets WHERE seq = ANY($1::bigint[])`,
      [seqs],
    );
    const store = createPgVectorStore(pool);
    const space = await store.ensureSpace('asset_text', 'm', 4, 'ready');
    expect(space.id).toBe(id);
    expect([await store.count(CONTRACT_SCOPE, space), await store.count(OTHER_WORKSPACE, space)]).toEqual([2, 1]);
    await assets.deleteMany(CONTRACT_SCOPE, [seqs[0]!]);
    // a second ensureSpace attaches nothing twice
    await createPgVectorStore(schema.pool()).ensureSpace('asset_text', 'm', 4, 'ready');
    const [counts, truth] = await vectorCounts(pool, id);
    expect(counts).toEqual(truth);
    expect(await store.count(CONTRACT_SCOPE, space)).toBe(1);
  });
});
