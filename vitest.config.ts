import { configDefaults, defineConfig } from 'vitest/config';
import { POSTGRES_STORE_TESTS } from './e2e/pg/stores.vitest.config.ts';

export default defineConfig({
  test: {
    include: [
      'server/**/*.test.ts',
      'shared/**/*.test.ts',
      'ui/**/*.test.ts',
      'eval/**/*.test.ts',
      'e2e/mcp/**/*.test.ts',
      'e2e/pg/*.test.ts',
    ],
    // the PostgreSQL stores' suites run in `npm run test:scale` (e2e/pg/stores.vitest.config.ts)
    exclude: [...configDefaults.exclude, ...POSTGRES_STORE_TESTS],
    // Native addons (better-sqlite3, sharp, sqlite-vec) are safest in forked workers.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
