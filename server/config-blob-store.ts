import { z } from 'zod';
import { bool, int } from './config-fields.ts';
import type { S3BlobStoreOptions } from './storage/blob-store-s3.ts';
import { parseS3Url } from './storage/s3-url.ts';

/**
 * The blob store's environment variables (part of config.ts `EnvSchema`): where blobs live — the local
 * directory of the data dir, or any S3 API (ATELIER_BLOB_STORE=s3://bucket/prefix) — and the S3 client
 * settings (server/storage/blob-store-s3.ts).
 */
export const BLOB_STORE_ENV = {
  ATELIER_BLOB_STORE: z
    .string()
    .optional()
    .refine(
      (v) => !v || parseS3Url(v) !== null,
      'must be s3://bucket or s3://bucket/prefix (bucket: 3–63 lowercase letters, digits, dots and hyphens); unset = the local directory <ATELIER_DATA_DIR>/blobs',
    )
    .describe(
      'where blobs live: unset = <ATELIER_DATA_DIR>/blobs; s3://bucket/prefix = any S3 API (AWS, R2, Ceph RGW, SeaweedFS, MinIO), see ATELIER_S3_*',
    ),
  ATELIER_S3_ENDPOINT: z
    .string()
    .url('must be an absolute URL like https://s3.example.com')
    .optional()
    .describe('S3 endpoint of a non-AWS engine (R2, Ceph RGW, SeaweedFS, MinIO); unset = AWS for the region'),
  ATELIER_S3_REGION: z
    .string()
    .min(1)
    .optional()
    .describe('S3 region; default AWS_REGION, else us-east-1 (most non-AWS engines accept any)'),
  ATELIER_S3_FORCE_PATH_STYLE: bool
    .default(false)
    .describe(
      'address objects as <endpoint>/<bucket>/<key> (Ceph RGW, MinIO, SeaweedFS without wildcard DNS) instead of <bucket>.<endpoint>/<key>',
    ),
  ATELIER_S3_DELIVERY: z
    .enum(['stream', 'presign'])
    .default('stream')
    .describe(
      'how the CDN route answers with S3 blobs: stream = the server reads from S3 and sends the bytes (one origin, our security headers); presign = a 302 redirect to a presigned GET URL (bytes never pass through the server)',
    ),
  ATELIER_S3_PRESIGN_TTL_S: int(60, 7 * 24 * 3600)
    .default(3600)
    .describe('lifetime of a presigned blob URL, seconds (ATELIER_S3_DELIVERY=presign; S3 allows at most 7 days)'),
  ATELIER_S3_PART_BYTES: int(5 * 1024 * 1024, 5 * 1024 * 1024 * 1024)
    .default(16 * 1024 * 1024)
    .describe('blobs larger than this are uploaded as S3 multipart uploads in parts of this size, bytes (S3 minimum 5 MiB)'),
  AWS_ACCESS_KEY_ID: z
    .string()
    .min(1)
    .optional()
    .describe('S3 access key (with AWS_SECRET_ACCESS_KEY); unset = the AWS SDK default chain (shared config, instance or container role)'),
  AWS_SECRET_ACCESS_KEY: z.string().min(1).optional().describe('S3 secret key (with AWS_ACCESS_KEY_ID)'),
  AWS_SESSION_TOKEN: z.string().min(1).optional().describe('temporary-credentials session token (with the two keys)'),
  AWS_REGION: z.string().min(1).optional().describe('default of ATELIER_S3_REGION'),
};

/** The parsed blob store variables. */
export type BlobStoreEnv = z.infer<z.ZodObject<typeof BLOB_STORE_ENV>>;

/** Where blobs live: the data dir's local directory (default) or an S3 bucket and prefix with its client settings. */
export type BlobStoreConfig = { kind: 'local' } | ({ kind: 's3' } & Omit<S3BlobStoreOptions, 'hooks'>);

/** The blob store `Config.blobStore` describes, from variables `blobStoreProblems` found nothing wrong with. */
export function blobStoreConfig(e: BlobStoreEnv): BlobStoreConfig {
  const s3 = e.ATELIER_BLOB_STORE ? parseS3Url(e.ATELIER_BLOB_STORE) : null;
  if (!s3) return { kind: 'local' };
  return {
    kind: 's3',
    ...s3,
    endpoint: e.ATELIER_S3_ENDPOINT ?? null,
    region: e.ATELIER_S3_REGION ?? e.AWS_REGION ?? 'us-east-1',
    forcePathStyle: e.ATELIER_S3_FORCE_PATH_STYLE,
    credentials:
      e.AWS_ACCESS_KEY_ID && e.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: e.AWS_ACCESS_KEY_ID, secretAccessKey: e.AWS_SECRET_ACCESS_KEY, sessionToken: e.AWS_SESSION_TOKEN }
        : null,
    delivery: e.ATELIER_S3_DELIVERY,
    presignTtlS: e.ATELIER_S3_PRESIGN_TTL_S,
    partSizeBytes: e.ATELIER_S3_PART_BYTES,
  };
}

/** Cross-variable rules of the blob store settings: S3 settings need an S3 store, its keys come in pairs (AWS_* alone are other programs' business). */
export function blobStoreProblems(e: BlobStoreEnv): string[] {
  const problems: string[] = [];
  if (!e.ATELIER_BLOB_STORE) {
    for (const k of ['ATELIER_S3_ENDPOINT', 'ATELIER_S3_REGION'] as const) {
      if (e[k] !== undefined)
        problems.push(`${k}: applies only with ATELIER_BLOB_STORE=s3://bucket/prefix (unset: blobs are in the local directory)`);
    }
  }
  if (e.ATELIER_BLOB_STORE && !!e.AWS_ACCESS_KEY_ID !== !!e.AWS_SECRET_ACCESS_KEY) {
    problems.push(
      `${e.AWS_ACCESS_KEY_ID ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID'}: must be set together with ${e.AWS_ACCESS_KEY_ID ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY'}`,
    );
  }
  return problems;
}
