import { defineConfig } from 'vitest/config';

/**
 * `npm run test:scale`, third part (scripts/test-scale.mjs sets ATELIER_TEST_PGLITE=1 and the S3
 * variables): the MCP behaviour tests that need pgvector — semantic, hybrid and similar search, product
 * vectors, re-embedding, calibration, the image–text model's space — on PostgreSQL with pgvector, which the machine's PostgreSQL 15
 * lacks (part 2, e2e/pg/vitest.config.ts, runs the rest there). Blobs are on S3 (the run's prefix + `-pglite`).
 *
 * The database: every test data dir gets a PGlite of its own (PGlite + pgvector + unaccent in the test
 * process, served over the wire protocol: e2e/pglite/pglite-database.ts), started by the harness
 * (e2e/mcp/harness.ts `openTestDatabase`, which `startTestServer` calls) and stopped with its server.
 * Not one shared instance: PGlite is ONE session, and the servers of one file run at the same time
 * (enrichment starts a second server beside the first), each setting its own schema's search_path on a
 * session they would all share. Per data dir, everything on one instance uses one schema: the server (one
 * connection, ATELIER_DATABASE_POOL_MAX=1), later servers on the same data dir (enrichment-durability's
 * restarts) and the CLI children of the data dir (faults' stdio servers, relevance's `atelier
 * synonyms`), whose connections can be open at once. For those, pglite-database.ts serialises the
 * session by connection — one connection's extended query or transaction runs to its end before another's
 * starts, and a connection that dies has its transaction rolled back — which pglite-socket alone does not
 * (e2e/pglite/pglite-database.test.ts shows the difference). A `backendEnv` or `tempConfig` for a data
 * dir whose PGlite was not started throws, so nothing falls back to SQLite unnoticed; `startTestServer`
 * checks that its server runs on PostgreSQL.
 *
 * Run through the public surface and the ports (`app.stores`), not the SQLite file: relevance and
 * enrichment-durability read calibrations, vector counts, live spaces and pending jobs there; relevance
 * runs its CLI children asynchronously (this process serves their database).
 *
 * Not here (they need no vectors, so they run on PostgreSQL 15 in part 2, e2e/pg/vitest.config.ts):
 * - catalog-sync (its CLI children get the test server's schema).
 * - processes and demo-seed (their CLI children get the data dir's schema; demo-seed's searches are
 *   lexical, enrichment off).
 */
export default defineConfig({
  test: {
    include: [
      'e2e/pglite/pglite-database.test.ts',
      'e2e/mcp/calibration.test.ts',
      'e2e/mcp/catalog-semantic.test.ts',
      'e2e/mcp/cross-process-semantic.test.ts',
      'e2e/mcp/enrichment.test.ts',
      'e2e/mcp/enrichment-durability.test.ts',
      'e2e/mcp/faults.test.ts',
      'e2e/mcp/image-model.test.ts',
      // also on PostgreSQL 15 (part 2): here because PGlite shares one session between connections, which
      // broke the reverted limiter's named prepared statements (server/tenancy/rate-limits.ts)
      'e2e/mcp/rate-limits.test.ts',
      'e2e/mcp/relevance.test.ts',
      'e2e/mcp/relevance-names.test.ts',
      'e2e/mcp/relevance-products.test.ts',
      'e2e/mcp/small-answers.test.ts',
    ],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
