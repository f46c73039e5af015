import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe } from 'vitest';
import { loadConfig } from '../config.ts';
import { createS3Client } from './blob-store-s3.ts';
import { createStagingStore } from './staging.ts';
import { stagingStoreContract } from './staging-contract.ts';
import { createS3StagingStore } from './staging-s3.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

stagingStoreContract('local directory', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-staging-'));
  dirs.push(d);
  return Promise.resolve(createStagingStore(d));
});

// S3: only when the run names a bucket (`npm run test:scale` starts Ceph RGW and sets ATELIER_BLOB_STORE).
const config = loadConfig({ ...process.env, ATELIER_DATA_DIR: os.tmpdir() });
const s3 = config.blobStore.kind === 's3' ? config.blobStore : null;
describe.runIf(s3)('S3 staging store (a real engine)', () => {
  stagingStoreContract('S3', () =>
    Promise.resolve(
      createS3StagingStore({
        client: createS3Client(s3!),
        bucket: s3!.bucket,
        prefix: `${s3!.prefix}staging-contract-${randomUUID()}/`,
        partSizeBytes: 5 * 1024 * 1024,
      }),
    ),
  );
});
