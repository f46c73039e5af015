import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The container image checks (e2e/container/image.test.ts) alone, against the image scripts/container-test.sh
 * has just built (ATELIER_CONTAINER_IMAGE, ATELIER_CONTAINER_BUILDAH); that script is the way to run them.
 */
export default defineConfig({
  root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'),
  test: {
    include: ['e2e/container/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
