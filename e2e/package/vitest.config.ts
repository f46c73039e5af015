import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The package install test (e2e/package/install.test.ts) alone: `npm test` runs it as its own step
 * (scripts/test-all.mjs) because it packs the project and compiles better-sqlite3 in a fresh install.
 * Run: `npx vitest run --config e2e/package/vitest.config.ts`.
 */
export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'),
  test: {
    include: ['e2e/package/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 900_000,
  },
});
