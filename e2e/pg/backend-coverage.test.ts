import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import pgConfig from './vitest.config.ts';
import pgliteConfig from '../pglite/vitest.config.ts';
import { POSTGRES_STORE_TESTS } from './stores.vitest.config.ts';
import { REPO_ROOT } from '../mcp/harness.ts';

/**
 * One behaviour suite, two backends (issue 16): every MCP behaviour test file (e2e/mcp/*.test.ts) that
 * `npm test` runs on SQLite also runs on PostgreSQL in `npm run test:scale` — on PostgreSQL 15
 * (e2e/pg/vitest.config.ts), on PGlite with pgvector (e2e/pglite/vitest.config.ts), or, for the one that
 * needs both a SQLite source and a PostgreSQL target, in the stores part (stores.vitest.config.ts). A new
 * test file listed in none of them fails here instead of silently never meeting PostgreSQL.
 */
describe('test:scale covers the MCP behaviour suite on PostgreSQL', () => {
  it('lists every e2e/mcp test file in a PostgreSQL part', () => {
    const files = fs
      .readdirSync(path.join(REPO_ROOT, 'e2e', 'mcp'))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `e2e/mcp/${f}`);
    const listed = new Set([...(pgConfig.test?.include ?? []), ...(pgliteConfig.test?.include ?? []), ...POSTGRES_STORE_TESTS]);
    expect(files.length).toBeGreaterThan(30);
    expect(files.filter((f) => !listed.has(f))).toEqual([]);
  });
});
