import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3ServiceException,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { BlobStoreError, s3Request } from './blob-store-s3.ts';
import type { StagingStore } from './staging.ts';

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The upload channel's staging area on S3, for several server processes on several machines: a chunk
 * that reached one process and the `complete` that reaches another see the same parts. Keys:
 * `<prefix>staging/<upload id>/<000000>.part` while chunks arrive, then `<prefix>staging/<upload id>/file`.
 * Every key is written by one PutObject (or one multipart upload for the whole file), which S3 makes
 * visible all at once, so a crash never leaves a torn part or a torn file. Assembly streams the parts
 * through a SHA-256 into `file` (`@aws-sdk/lib-storage` Upload: one PutObject up to `partSizeBytes`,
 * multipart beyond), memory O(one S3 part). A multipart upload left incomplete is aborted by lib-storage on
 * error; one a crash left is listed by `list` (ListObjectsV2 cannot see it) and aborted by `remove`, so the
 * upload sweeper aborts it with its expired or orphaned session; a bucket lifecycle rule
 * `AbortIncompleteMultipartUpload` is the backstop.
 * @param prefix key prefix, empty or ending in `/` (the blob store's)
 * @param partSizeBytes multipart part size for the assembled file, bytes (≥ 5 MiB)
 */
export function createS3StagingStore(o: { client: S3Client; bucket: string; prefix: string; partSizeBytes: number }): StagingStore {
  const { client } = o;
  const Bucket = o.bucket;
  const root = `${o.prefix}staging/`;
  const dirOf = (id: string): string => {
    if (!ID.test(id)) throw new Error(`not an upload id: ${id}`);
    return `${root}${id}/`;
  };
  const partKey = (id: string, i: number): string => `${dirOf(id)}${String(i).padStart(6, '0')}.part`;
  const fileKey = (id: string): string => `${dirOf(id)}file`;
  const urlOf = (key: string): string => `s3://${Bucket}/${key}`;

  const call = <T>(operation: string, key: string, fn: () => Promise<T>, notFound: 'null' | 'throw' = 'throw'): Promise<T | null> =>
    s3Request(Bucket, operation, key, fn, notFound);
  /** The object's bytes as a stream, or null when absent. */
  const get = async (key: string): Promise<Readable | null> => {
    const r = await call('GetObject', key, () => client.send(new GetObjectCommand({ Bucket, Key: key })), 'null');
    return r ? (r.Body as Readable) : null;
  };
  const del = async (key: string): Promise<void> => {
    await call('DeleteObject', key, () => client.send(new DeleteObjectCommand({ Bucket, Key: key })));
  };
  /** Keys under `prefix`, all pages. */
  async function keysUnder(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    try {
      for await (const page of paginateListObjectsV2({ client }, { Bucket, Prefix: prefix }))
        for (const c of page.Contents ?? []) if (c.Key) keys.push(c.Key);
    } catch (e) {
      if (e instanceof S3ServiceException)
        throw new BlobStoreError('ListObjectsV2', urlOf(prefix), e.$metadata.httpStatusCode ?? null, e.name, { cause: e });
      throw e;
    }
    return keys;
  }
  /** Incomplete multipart uploads under `prefix` (key, upload id), all pages. */
  async function multipartUnder(prefix: string): Promise<{ key: string; uploadId: string }[]> {
    const out: { key: string; uploadId: string }[] = [];
    let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
    for (;;) {
      const page = (await call('ListMultipartUploads', prefix, () =>
        client.send(new ListMultipartUploadsCommand({ Bucket, Prefix: prefix, ...markers })),
      ))!;
      for (const u of page.Uploads ?? []) if (u.Key && u.UploadId) out.push({ key: u.Key, uploadId: u.UploadId });
      if (!page.IsTruncated || (!page.NextKeyMarker && !page.NextUploadIdMarker)) return out;
      markers = {
        ...(page.NextKeyMarker ? { KeyMarker: page.NextKeyMarker } : {}),
        ...(page.NextUploadIdMarker ? { UploadIdMarker: page.NextUploadIdMarker } : {}),
      };
    }
  }
  const removeParts = async (id: string): Promise<void> => {
    for (const k of await keysUnder(dirOf(id))) if (k.endsWith('.part')) await del(k);
  };
  /** SHA-256 hex and size of a stream, bytes. */
  const digest = async (body: Readable): Promise<{ sha256: string; sizeBytes: number }> => {
    const hash = createHash('sha256');
    let sizeBytes = 0;
    for await (const chunk of body) {
      hash.update(chunk as Buffer);
      sizeBytes += (chunk as Buffer).length;
    }
    return { sha256: hash.digest('hex'), sizeBytes };
  };

  return {
    async writePart(id, index, bytes) {
      const key = partKey(id, index);
      await call('PutObject', key, () => client.send(new PutObjectCommand({ Bucket, Key: key, Body: bytes, ContentLength: bytes.length })));
    },
    async assemble(id, count) {
      const existing = await get(fileKey(id));
      if (existing) {
        const whole = await digest(existing);
        await removeParts(id);
        return whole;
      }
      // Fail before writing anything when a part is missing (the local store's ENOENT).
      const have = new Set(await keysUnder(dirOf(id)));
      for (let i = 0; i < count; i++) {
        if (!have.has(partKey(id, i))) {
          throw Object.assign(new Error(`ENOENT: part ${i} of upload ${id} is missing (${urlOf(partKey(id, i))})`), { code: 'ENOENT' });
        }
      }
      const hash = createHash('sha256');
      let sizeBytes = 0;
      async function* parts(): AsyncGenerator<Buffer> {
        for (let i = 0; i < count; i++) {
          const body = await get(partKey(id, i));
          if (!body) throw Object.assign(new Error(`ENOENT: part ${i} of upload ${id} vanished during assembly`), { code: 'ENOENT' });
          for await (const chunk of body) {
            hash.update(chunk as Buffer);
            sizeBytes += (chunk as Buffer).length;
            yield chunk as Buffer;
          }
        }
      }
      const key = fileKey(id);
      await call('Upload', key, () =>
        new Upload({ client, params: { Bucket, Key: key, Body: Readable.from(parts()) }, partSize: o.partSizeBytes, queueSize: 1 }).done(),
      );
      await removeParts(id);
      return { sha256: hash.digest('hex'), sizeBytes };
    },
    async readFile(id) {
      const body = await get(fileKey(id));
      if (!body) return null;
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    },
    removePart: (id, index) => del(partKey(id, index)),
    async remove(id) {
      for (const k of await keysUnder(dirOf(id))) await del(k);
      for (const u of await multipartUnder(dirOf(id)))
        await call(
          'AbortMultipartUpload',
          u.key,
          () => client.send(new AbortMultipartUploadCommand({ Bucket, Key: u.key, UploadId: u.uploadId })),
          'null',
        );
    },
    async list() {
      const ids = new Set<string>();
      for (const k of [...(await keysUnder(root)), ...(await multipartUnder(root)).map((u) => u.key)]) {
        const id = k.slice(root.length).split('/')[0]!;
        if (ID.test(id)) ids.add(id);
      }
      return [...ids];
    },
  };
}
