import { afterEach, describe, expect, it } from 'vitest';
import { pgliteServerPerSuite, schemasPerCase, seedPgContractScopes } from '../contract/pg-schemas.ts';
import { vectorStoreContract } from '../contract/vector-store-contract.ts';
import { VectorStoreUnavailableError } from '../ports/vector-store.ts';
import { createPgAssetStore } from './assets.ts';
import { loadPgMigrations } from './migrate.ts';
import type { PgPool } from './pool.ts';
import { createTestSchema } from '../contract/pg-test-database.ts';
import { createPgVectorStore } from './vector-store.ts';

// The PostgreSQL VectorStore against the contract the SQLite store passes (../vector-store.test.ts), on
// PGlite with pgvector served over the wire protocol (pglite-server.ts): the machine's PostgreSQL 15
// has no pgvector. On that real PostgreSQL 15 the store must say it is unavailable, and why, while the
// migrations of every other store still apply.
const server = pgliteServerPerSuite();

const schemas = schemasPerCase();
const seed = seedPgContractScopes;

vectorStoreContract('PostgreSQL + pgvector (PGlite)', {
  async create() {
    const schema = await server.schema();
    schemas.track(schema);
    const pool = schema.pool();
    await seed(pool);
    return { vectors: createPgVectorStore(pool), assets: createPgAssetStore(pool), open: async () => createPgVectorStore(schema.pool()) };
  },
});

// The same on the HNSW path: every partition goes through the index with iterative scans. On tables
// this small the planner would rather sort than walk the index: enable_sort = off (for PGlite's one
// session, reset after each case) makes the ordered index scan the cheaper plan.
afterEach(async () => {
  await server.query('RESET enable_sort');
});
vectorStoreContract('PostgreSQL + pgvector (PGlite), HNSW index for every partition', {
  async create() {
    const schema = await server.schema();
    schemas.track(schema);
    const pool = schema.pool();
    await seed(pool);
    await server.query('SET enable_sort = off');
    const make = (p: PgPool) => createPgVectorStore(p, { exactScanMax: 0 });
    return { vectors: make(pool), assets: createPgAssetStore(pool), open: async () => make(schema.pool()) };
  },
});

describe('PostgreSQL vector store, HNSW path', () => {
  it('answers by the exact scan when the index walk stops short of k under a filter', async () => {
    const schema = await server.schema();
    schemas.track(schema);
    const pool = schema.pool();
    await seed(pool);
    const scope = { tenantId: 'tenant-a', workspaceId: 'ws-a' };
    const vectors = createPgVectorStore(pool, { exactScanMax: 0 });
    const space = await vectors.ensureSpace('asset_text', 'm', 2, 'ready');
    // 60 near assets fail the filter; the 2 that pass are the farthest
    await pool.query(
      `INSERT INTO assets (id, tenant_id, workspace_id, kind, format, mime_type, size_bytes, sha256, source_sha256, name, source, created_at)
       SELECT 'near-' || i, 'tenant-a', 'ws-a', 'image', 'jpeg', 'image/jpeg', 1, 'n' || i, 'n' || i, 'x', 'seed', now() FROM generate_series(1, 60) i`,
    );
    await pool.query(
      `INSERT INTO ${'asset_vectors_' + space.id} SELECT seq, 'ws-a', ('[1,' || (seq::float8 / 1000) || ']')::public.vector FROM assets`,
    );
    const far = (
      await pool.query<{ seq: number }>(
        `INSERT INTO assets (id, tenant_id, workspace_id, kind, format, mime_type, size_bytes, sha256, source_sha256, name, category, source, created_at)
         SELECT 'far-' || i, 'tenant-a', 'ws-a', 'image', 'jpeg', 'image/jpeg', 1, 'f' || i, 'f' || i, 'x', 'banner', 'seed', now()
         FROM generate_series(5, 6) i RETURNING seq`,
      )
    ).rows.map((r) => r.seq);
    for (const [i, seq] of far.entries()) expect(await vectors.put(scope, space, seq, Float32Array.of(1, 5 + i))).toBe(true);
    // the first walk visits ef_search (40) rows; no more after it: none of those passes
    await server.query('SET enable_sort = off');
    await server.query('SET hnsw.max_scan_tuples = 1');
    try {
      const hits = await vectors.nearest(scope, space, Float32Array.of(1, 0), 2, { category: 'banner' });
      expect(hits.map((h) => h.seq)).toEqual(far);
    } finally {
      await server.query('RESET hnsw.max_scan_tuples');
    }
  });
});

describe('PostgreSQL vector store without the vector extension (the machine PostgreSQL 15)', () => {
  it('migrates every store, reports itself unavailable with the reason, and refuses vector work', async () => {
    const schema = await createTestSchema();
    schemas.track(schema);
    const pool = schema.pool(2);
    const ext = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'`);
    // the premise of this test: this server offers no pgvector (if it ever does, point ATELIER_TEST_POSTGRES_URL at one without)
    expect(ext.rows[0]!.n).toBe(0);
    const versions = (await pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map(
      (r) => r.version,
    );
    expect(versions).toEqual(loadPgMigrations().map((m) => m.version));
    await seed(pool);
    const assets = createPgAssetStore(pool);
    expect(await assets.maxSeq({ tenantId: 'tenant-a', workspaceId: 'ws-a' })).toBe(0);

    const vectors = createPgVectorStore(pool);
    const a = await vectors.available();
    expect(a.ok).toBe(false);
    const reason = a.ok ? '' : a.reason;
    expect(reason).toMatch(/^the vector extension \(pgvector\) is not installed on the PostgreSQL server of database "test"/);
    expect(reason).toContain('CREATE EXTENSION vector');
    await expect(vectors.ensureSpace('asset_text', 'm', 4, 'ready')).rejects.toThrow(VectorStoreUnavailableError);
    await expect(vectors.liveSpaces('asset_text')).rejects.toThrow(reason);
  });
});
