import { defineConfig } from 'vitest/config';

/**
 * `npm run test:scale` (scripts/test-scale.mjs sets ATELIER_BLOB_STORE=s3://… and the S3 endpoint): the
 * BlobStore contract on both implementations, and the MCP behaviour tests that touch blobs, on S3.
 */
export default defineConfig({
  test: {
    include: [
      'server/storage/blob-store.test.ts',
      'server/storage/staging.test.ts',
      'e2e/mcp/blob-gc.test.ts',
      'e2e/mcp/cdn.test.ts',
      'e2e/mcp/import.test.ts',
      'e2e/mcp/import-admission.test.ts',
      'e2e/mcp/upload.test.ts',
      'e2e/mcp/upload-attachments.test.ts',
      'e2e/mcp/view-discover.test.ts',
      'e2e/mcp/manage.test.ts',
      'e2e/mcp/generate-local.test.ts',
      'e2e/mcp/generate-edit.test.ts',
      'e2e/scale/proxy.test.ts',
    ],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
