import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The package tests: the npm package installed with --omit=dev (e2e/package/install.test.ts) and the MCP Bundle
 * (e2e/package/bundle.test.ts). `npm test` runs them as their own step (scripts/test-all.mjs), beside Playwright,
 * on the tarball it packed first; run alone, pack.global.ts packs once for both.
 * Run: `npx vitest run --config e2e/package/vitest.config.ts`.
 */
export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'),
  test: {
    include: ['e2e/package/**/*.test.ts'],
    globalSetup: ['e2e/package/pack.global.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 900_000,
  },
});
