import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { TestHooks } from '../test-hooks.ts';
import { sha256Hex, type BlobStore } from './blob-store.ts';

/** Settings of an S3 blob store (server/config.ts parses them from ATELIER_BLOB_STORE and ATELIER_S3_*). */
export interface S3BlobStoreOptions {
  bucket: string;
  /** key prefix, empty or ending in `/` */
  prefix: string;
  /** custom endpoint (Ceph RGW, R2, SeaweedFS, MinIO…); null = AWS for `region` */
  endpoint: string | null;
  region: string;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (most non-AWS engines) */
  forcePathStyle: boolean;
  /** static keys; null = the AWS SDK's default chain (env, shared config, instance/container role) */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined } | null;
  /** `/cdn` answers with the bytes (`stream`) or a 302 to a presigned GET URL (`presign`) */
  delivery: 'stream' | 'presign';
  /** lifetime of a presigned URL, seconds */
  presignTtlS: number;
  /** blobs larger than this go up as a multipart upload in parts of this size, bytes (≥ 5 MiB, the S3 minimum) */
  partSizeBytes: number;
  hooks?: TestHooks | undefined;
}

/**
 * A failed S3 request, with what a operator needs to act on it: the operation, the object, the HTTP
 * status and the S3 error code (`SignatureDoesNotMatch`, `NoSuchBucket`, `AccessDenied`, …).
 */
export class BlobStoreError extends Error {
  constructor(
    readonly operation: string,
    readonly url: string,
    readonly status: number | null,
    readonly s3Code: string,
    options?: { cause?: unknown },
  ) {
    super(`S3 ${operation} ${url} failed: ${s3Code}${status ? ` (HTTP ${status})` : ''}`, options);
    this.name = 'BlobStoreError';
  }
}

const SHA = /^[0-9a-f]{64}$/;
const QUARANTINE = /^quarantine\/([0-9a-f]{64})\.[0-9a-f-]{36}$/;
const MULTIPART = /^multipart\/([0-9a-f]{64})\/(.+)$/;

/**
 * Run one S3 request of `bucket`: an S3 failure becomes a BlobStoreError naming the operation and the
 * object; a 404 of the object (not of the bucket) becomes `null` when `notFound` is 'null'.
 * @throws BlobStoreError | what `fn` throws besides S3 service errors (network, abort)
 */
export async function s3Request<T>(
  bucket: string,
  operation: string,
  key: string,
  fn: () => Promise<T>,
  notFound: 'null' | 'throw' = 'throw',
): Promise<T | null> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof S3ServiceException) {
      const status = e.$metadata.httpStatusCode ?? null;
      if (notFound === 'null' && status === 404 && e.name !== 'NoSuchBucket') return null;
      throw new BlobStoreError(operation, `s3://${bucket}/${key}`, status, e.name, { cause: e });
    }
    throw e;
  }
}

/**
 * The S3 client of the blob store and the staging store, with the settings non-AWS engines need:
 * checksums only when an operation requires them (a streamed, aws-chunked PutObject with a checksum trailer
 * gets 411 from Ceph RGW and 501 from Swift), path-style addressing when asked, 3 attempts per request.
 */
export function createS3Client(o: Pick<S3BlobStoreOptions, 'region' | 'endpoint' | 'forcePathStyle' | 'credentials'>): S3Client {
  return new S3Client({
    region: o.region,
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    forcePathStyle: o.forcePathStyle,
    ...(o.credentials ? { credentials: o.credentials } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}

/**
 * Blob store on any S3 API. Keys: `<prefix>blobs/<sha256>` (content-addressed, immutable bytes) and
 * `<prefix>quarantine/<sha256>.<uuid>` (bytes a GC pass moved aside and has not yet decided about).
 *
 * S3 has no atomic rename, so the local store's "move aside, then decide" is done in three requests and
 * the window it leaves is closed from the writer's side (see `BlobStore`):
 * - `put` of bytes that exist renews their LastModified by copying the object onto itself with new
 *   metadata (S3 refuses a self-copy that changes nothing), so the GC's grace period covers the row about
 *   to reference them; a self-copy that finds the object gone writes it anew.
 * - `removeIfUnused`: HEAD (LastModified must still be past the grace period), CopyObject to a quarantine
 *   key, DeleteObject, then `stillUnused` again — the row references are re-checked *after* the delete.
 *   A row committed before that re-check sees its bytes restored from quarantine; a row committed after
 *   it belongs to a writer whose post-commit `has` (on every blob it names) runs after the delete, finds
 *   nothing and puts again. The HEAD may be stale by then (another pass removed the object and a writer
 *   wrote it fresh); a conditional copy cannot tell, since the same bytes have the same ETag and Ceph RGW
 *   ignores the copy-source conditions, so the writer's check is what closes that window.
 * - a pass killed between copy and decision leaves a quarantine object: the next pass restores it when
 *   referenced, and deletes it only past the grace period otherwise; a young one it restores but keeps,
 *   since a live pass may still be deciding from it.
 * Large blobs go up by multipart upload (`@aws-sdk/lib-storage`); uploads a crash left incomplete are
 * listed as `tmp` leftovers and aborted by the GC past the grace period.
 * Client settings for non-AWS engines: checksums only when required (a streamed, aws-chunked PutObject
 * with a checksum trailer gets 411 from Ceph RGW and 501 from Swift), path-style addressing when asked.
 */
export function createS3BlobStore(o: S3BlobStoreOptions): BlobStore {
  const client = createS3Client(o);
  const Bucket = o.bucket;
  const blobsPrefix = `${o.prefix}blobs/`;
  const keyOf = (sha: string): string => {
    if (!SHA.test(sha)) throw new Error(`not a sha256 key: ${sha}`);
    return `${blobsPrefix}${sha}`;
  };
  const urlOf = (key: string): string => `s3://${Bucket}/${key}`;
  /** Paged listing with S3 failures as BlobStoreError. */
  async function* listed<T>(operation: string, key: string, pages: AsyncIterable<T>): AsyncIterable<T> {
    try {
      yield* pages;
    } catch (e) {
      if (e instanceof S3ServiceException)
        throw new BlobStoreError(operation, urlOf(key), e.$metadata.httpStatusCode ?? null, e.name, { cause: e });
      throw e;
    }
  }
  const call = <T>(operation: string, key: string, fn: () => Promise<T>, notFound: 'null' | 'throw' = 'throw'): Promise<T | null> =>
    s3Request(Bucket, operation, key, fn, notFound);
  const head = async (key: string): Promise<{ sizeBytes: number; mtimeMs: number } | null> => {
    const h = await call('HeadObject', key, () => client.send(new HeadObjectCommand({ Bucket, Key: key })), 'null');
    return h ? { sizeBytes: h.ContentLength ?? 0, mtimeMs: h.LastModified?.getTime() ?? 0 } : null;
  };
  const del = (key: string): Promise<unknown> =>
    call('DeleteObject', key, () => client.send(new DeleteObjectCommand({ Bucket, Key: key })));
  /** Server-side copy; false when the source is gone. */
  const copy = async (from: string, to: string, renew: boolean): Promise<boolean> => {
    const r = await call(
      'CopyObject',
      to,
      () =>
        client.send(
          new CopyObjectCommand({
            Bucket,
            Key: to,
            CopySource: `${Bucket}/${from.split('/').map(encodeURIComponent).join('/')}`,
            ...(renew
              ? { MetadataDirective: 'REPLACE', ContentType: 'application/octet-stream', Metadata: { renewed: new Date().toISOString() } }
              : {}),
          }),
        ),
      'null',
    );
    return r !== null;
  };
  const write = async (key: string, bytes: Buffer): Promise<void> => {
    if (bytes.length <= o.partSizeBytes) {
      await call('PutObject', key, () =>
        client.send(
          new PutObjectCommand({ Bucket, Key: key, Body: bytes, ContentLength: bytes.length, ContentType: 'application/octet-stream' }),
        ),
      );
      return;
    }
    // Parts of partSizeBytes, 4 in flight; on failure lib-storage aborts the upload (a crash leaves it to the GC).
    const upload = new Upload({
      client,
      params: { Bucket, Key: key, Body: bytes, ContentType: 'application/octet-stream' },
      partSize: o.partSizeBytes,
      queueSize: 4,
      leavePartsOnError: false,
    });
    await call('MultipartUpload', key, () => upload.done());
  };
  const store: BlobStore = {
    location: `s3://${Bucket}/${o.prefix}`,
    async check() {
      await call('ListObjectsV2', blobsPrefix, () => client.send(new ListObjectsV2Command({ Bucket, Prefix: blobsPrefix, MaxKeys: 1 })));
    },
    async put(bytes) {
      const sha256 = sha256Hex(bytes);
      const key = keyOf(sha256);
      if ((await head(key)) && (await copy(key, key, true))) return { sha256, sizeBytes: bytes.length, renewed: true };
      await o.hooks?.pause('blob-put-rename');
      await write(key, bytes);
      return { sha256, sizeBytes: bytes.length, renewed: false };
    },
    async get(sha) {
      const key = keyOf(sha);
      const r = await call('GetObject', key, () => client.send(new GetObjectCommand({ Bucket, Key: key })), 'null');
      if (!r?.Body) throw Object.assign(new Error(`ENOENT: no blob ${urlOf(key)}`), { code: 'ENOENT' });
      return Buffer.from(await r.Body.transformToByteArray());
    },
    has: async (sha) => (await head(keyOf(sha))) !== null,
    stat: (sha) => head(keyOf(sha)),
    async read(sha, range) {
      const key = keyOf(sha);
      const r = await call(
        'GetObject',
        key,
        () => client.send(new GetObjectCommand({ Bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) })),
        'null',
      );
      return r?.Body ? (r.Body as Readable) : null;
    },
    async directUrl(sha, { contentType, cacheControl }) {
      if (o.delivery !== 'presign') return null;
      const cmd = new GetObjectCommand({ Bucket, Key: keyOf(sha), ResponseContentType: contentType, ResponseCacheControl: cacheControl });
      return getSignedUrl(client, cmd, { expiresIn: o.presignTtlS });
    },
    async *list() {
      for await (const page of listed('ListObjectsV2', blobsPrefix, paginateListObjectsV2({ client }, { Bucket, Prefix: blobsPrefix }))) {
        for (const obj of page.Contents ?? []) {
          const sha = obj.Key?.slice(blobsPrefix.length) ?? '';
          if (SHA.test(sha)) yield { sha256: sha, mtimeMs: obj.LastModified?.getTime() ?? 0, sizeBytes: obj.Size ?? 0 };
        }
      }
    },
    async *leftovers() {
      let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
      for (;;) {
        const page = (await call('ListMultipartUploads', blobsPrefix, () =>
          client.send(new ListMultipartUploadsCommand({ Bucket, Prefix: blobsPrefix, ...markers })),
        ))!;
        for (const u of page.Uploads ?? []) {
          const sha = u.Key?.slice(blobsPrefix.length) ?? '';
          if (SHA.test(sha) && u.UploadId)
            yield {
              name: `multipart/${sha}/${u.UploadId}`,
              sha256: sha,
              kind: 'tmp' as const,
              mtimeMs: u.Initiated?.getTime() ?? 0,
              sizeBytes: 0,
            };
        }
        if (!page.IsTruncated || (!page.NextKeyMarker && !page.NextUploadIdMarker)) break;
        markers = {
          ...(page.NextKeyMarker ? { KeyMarker: page.NextKeyMarker } : {}),
          ...(page.NextUploadIdMarker ? { UploadIdMarker: page.NextUploadIdMarker } : {}),
        };
      }
      for await (const page of listed(
        'ListObjectsV2',
        `${o.prefix}quarantine/`,
        paginateListObjectsV2({ client }, { Bucket, Prefix: `${o.prefix}quarantine/` }),
      )) {
        for (const obj of page.Contents ?? []) {
          const name = obj.Key?.slice(o.prefix.length) ?? '';
          const m = QUARANTINE.exec(name);
          if (m) yield { name, sha256: m[1]!, kind: 'gc' as const, mtimeMs: obj.LastModified?.getTime() ?? 0, sizeBytes: obj.Size ?? 0 };
        }
      }
    },
    async removeLeftover(name) {
      const mp = MULTIPART.exec(name);
      if (mp) {
        const key = keyOf(mp[1]!);
        const r = await call(
          'AbortMultipartUpload',
          key,
          () => client.send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId: mp[2]! })),
          'null',
        );
        return r !== null;
      }
      if (!QUARANTINE.test(name)) throw new Error(`not a leftover name: ${name}`);
      const key = `${o.prefix}${name}`;
      if (!(await head(key))) return false;
      await del(key);
      return true;
    },
    async restoreLeftover(name, r) {
      const m = QUARANTINE.exec(name);
      if (!m) throw new Error(`not a quarantined blob: ${name}`);
      const q = `${o.prefix}${name}`;
      const key = keyOf(m[1]!);
      // Content-addressed: if the key exists again it holds the same bytes, and the copy aside can go.
      if (!(await head(key)) && !(await copy(q, key, false)) && !(await head(key))) {
        throw new Error(`blob ${urlOf(key)} is gone and its quarantined copy ${urlOf(q)} too`);
      }
      if (!r?.keep) await del(q);
    },
    async removeIfUnused(sha, stillUnused) {
      const key = keyOf(sha);
      const before = await head(key);
      if (!before || !(await stillUnused(before.mtimeMs))) return 0;
      await o.hooks?.pause('blob-gc-decided');
      const q = `${o.prefix}quarantine/${sha}.${randomUUID()}`;
      if (!(await copy(key, q, false))) return 0;
      await o.hooks?.pause('blob-gc-quarantined');
      await del(key);
      // The references are asked again only now that the key is empty: a row committed before this line
      // gets its bytes back; a writer committing after it finds the key empty in its post-commit check.
      // That check runs for every blob a writer names, not only renewed ones: the bytes copied and deleted
      // here may be a fresh write of bytes another pass removed after this one's HEAD (`before` is stale).
      if (!(await stillUnused(before.mtimeMs))) {
        await store.restoreLeftover(q.slice(o.prefix.length));
        return 0;
      }
      await del(q);
      return before.sizeBytes;
    },
    async remove(sha) {
      const key = keyOf(sha);
      if (!(await head(key))) return false;
      await del(key);
      return true;
    },
  };
  return store;
}
