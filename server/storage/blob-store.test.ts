import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateMultipartUploadCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { blobStoreContract } from './blob-store-contract.ts';
import { createLocalBlobStore, sha256Hex } from './blob-store.ts';
import { BlobStoreError, createS3BlobStore, type S3BlobStoreOptions } from './blob-store-s3.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

blobStoreContract('local directory', {
  async create() {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-blobs-'));
    dirs.push(d);
    return createLocalBlobStore(d);
  },
  // what a write killed between writing its temp file and the rename leaves
  async crashMidWrite(store, bytes) {
    const sha = sha256Hex(bytes);
    const dir = path.join(store.location, sha.slice(0, 2), sha.slice(2, 4));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${sha}.${randomUUID()}.tmp`), bytes);
  },
  largeBytes: 12 * 1024 * 1024,
});

// S3: only when the run names a bucket (`npm run test:scale` starts Ceph RGW and sets ATELIER_BLOB_STORE).
const config = loadConfig({ ...process.env, ATELIER_DATA_DIR: os.tmpdir() });
const s3 = config.blobStore.kind === 's3' ? config.blobStore : null;
const PART = 5 * 1024 * 1024;
const s3Options = (o: Partial<S3BlobStoreOptions> = {}): S3BlobStoreOptions => ({
  ...s3!,
  prefix: `${s3!.prefix}contract-${randomUUID()}/`,
  partSizeBytes: PART,
  ...o,
});

describe.runIf(s3)('S3 blob store (a real engine)', () => {
  blobStoreContract('S3', {
    create: async () => createS3BlobStore(s3Options()),
    // a multipart upload that was started and got one part, then its writer died
    async crashMidWrite(store, bytes) {
      const c = s3!;
      const client = new S3Client({
        region: c.region,
        endpoint: c.endpoint ?? undefined,
        forcePathStyle: c.forcePathStyle,
        credentials: c.credentials ?? undefined,
        requestChecksumCalculation: 'WHEN_REQUIRED',
      });
      const key = `${store.location.slice(`s3://${c.bucket}/`.length)}blobs/${sha256Hex(bytes)}`;
      const up = await client.send(new CreateMultipartUploadCommand({ Bucket: c.bucket, Key: key }));
      await client.send(
        new UploadPartCommand({ Bucket: c.bucket, Key: key, UploadId: up.UploadId, PartNumber: 1, Body: bytes.subarray(0, PART) }),
      );
      client.destroy();
    },
    largeBytes: 2 * PART + 1234,
  });

  it('refuses a wrongly signed request, and our error names the operation, object, status and S3 code', async () => {
    const good = createS3BlobStore(s3Options());
    const { sha256 } = await good.put(Buffer.from('signed'));
    const bad = createS3BlobStore({
      ...s3Options(),
      prefix: good.location.slice(`s3://${s3!.bucket}/`.length),
      credentials: { accessKeyId: s3!.credentials!.accessKeyId, secretAccessKey: 'not-the-secret-key-0000000000000000000000' },
    });
    const err = await bad.get(sha256).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BlobStoreError);
    expect(err).toMatchObject({
      operation: 'GetObject',
      status: 403,
      s3Code: 'SignatureDoesNotMatch',
      url: `${good.location}blobs/${sha256}`,
    });
    expect((err as Error).message).toMatch(/^S3 GetObject s3:\/\/.+ failed: SignatureDoesNotMatch \(HTTP 403\)$/);
    // a write is refused as well (HEAD has no body: the status tells), and so is the start-up probe
    await expect(bad.put(Buffer.from('other bytes'))).rejects.toMatchObject({ name: 'BlobStoreError', status: 403 });
    await expect(bad.check()).rejects.toMatchObject({
      name: 'BlobStoreError',
      operation: 'ListObjectsV2',
      status: 403,
      s3Code: 'SignatureDoesNotMatch',
    });
    await expect(createS3BlobStore({ ...s3Options(), bucket: 'atelier-no-such-bucket' }).check()).rejects.toMatchObject({
      status: 404,
      s3Code: 'NoSuchBucket',
    });
  });

  it('delivery presign hands out a URL that serves the bytes with the asked Content-Type; stream hands out none', async () => {
    const presign = createS3BlobStore(s3Options({ delivery: 'presign', presignTtlS: 60 }));
    const bytes = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const { sha256 } = await presign.put(bytes);
    const url = (await presign.directUrl(sha256, { contentType: 'image/svg+xml', cacheControl: 'public, max-age=60' }))!;
    expect(url).toMatch(/X-Amz-Signature=/);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    // the signature covers the key: another key with the same signature is refused
    expect((await fetch(url.replace(sha256, sha256Hex(Buffer.from('x'))))).status).toBe(403);
    expect(
      await createS3BlobStore(s3Options({ delivery: 'stream' })).directUrl(sha256, { contentType: 'image/png', cacheControl: '' }),
    ).toBeNull();
  });
});
