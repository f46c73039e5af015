import { defineConfig } from 'vitest/config';

/**
 * `npm run test:scale`, the stores part (scripts/test-scale.mjs): the PostgreSQL implementations of the
 * storage ports against the same contract suites as SQLite's (server/db/contract/), on the machine's
 * PostgreSQL 15 (ATELIER_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test; every case in
 * a schema of its own, dropped after it) and, for vectors, on PGlite with pgvector in the test process;
 * the enrichment service on both, the lexical planner's parity between the two, and `atelier
 * migrate-backend` end to end (SQLite data dir → PostgreSQL + blob store). The SQLite side of each
 * contract stays in `npm test` (vitest.config.ts), which leaves these files out.
 */
export const POSTGRES_STORE_TESTS = [
  // all but the pure expression → tsquery compilation, which needs no database and stays in `npm test`
  'server/db/postgres/!(fts-tsquery).test.ts',
  'server/enrichment/service-postgres.test.ts',
  'e2e/mcp/migrate-backend.test.ts',
];

export default defineConfig({
  test: {
    include: POSTGRES_STORE_TESTS,
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
