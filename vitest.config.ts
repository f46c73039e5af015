import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'shared/**/*.test.ts', 'ui/**/*.test.ts', 'eval/**/*.test.ts', 'e2e/mcp/**/*.test.ts'],
    // Native addons (better-sqlite3, sharp, sqlite-vec) are safest in forked workers.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
