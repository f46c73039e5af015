import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateMultipartUploadCommand, ListMultipartUploadsCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
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
  it('an assembly a crash left as an incomplete multipart upload is listed, and remove aborts it', async () => {
    const client = createS3Client(s3!);
    const prefix = `${s3!.prefix}staging-crash-${randomUUID()}/`;
    const store = createS3StagingStore({ client, bucket: s3!.bucket, prefix, partSizeBytes: 5 * 1024 * 1024 });
    const id = randomUUID();
    // What a process killed mid-assembly leaves: a multipart upload of `file` with a part and no completion.
    const Key = `${prefix}staging/${id}/file`;
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: s3!.bucket, Key }));
    await client.send(new UploadPartCommand({ Bucket: s3!.bucket, Key, UploadId, PartNumber: 1, Body: randomBytes(1024) }));
    const incomplete = async (): Promise<number> =>
      (await client.send(new ListMultipartUploadsCommand({ Bucket: s3!.bucket, Prefix: prefix }))).Uploads?.length ?? 0;
    expect(await incomplete()).toBe(1);
    // The upload sweeper finds it by id (an orphan, or with its expired session) and removes it.
    expect(await store.list()).toEqual([id]);
    await store.remove(id);
    expect(await incomplete()).toBe(0);
    expect(await store.list()).toEqual([]);
    client.destroy();
  });

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
