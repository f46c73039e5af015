/**
 * The storage the configuration names, for the composition root (server/app.ts): the blob store (S3 or
 * the local directory), the upload staging area beside it, and the periodic blob GC.
 */
import path from 'node:path';
import type { Config } from '../config.ts';
import type { LibraryDeps } from '../assets/deps.ts';
import type { Logger } from '../log.ts';
import type { createTestHooks } from '../test-hooks.ts';
import { collectBlobGarbage } from './blob-gc.ts';
import { createLocalBlobStore, type BlobStore } from './blob-store.ts';
import { createStagingStore, type StagingStore } from './staging.ts';

/**
 * The blob store the configuration names: S3 (ATELIER_BLOB_STORE=s3://…) or the local directory. The S3
 * modules are imported only for S3: the AWS SDK is a large share of what a server would otherwise load at start.
 */
export async function createBlobStore(config: Config, hooks: ReturnType<typeof createTestHooks>): Promise<BlobStore> {
  const c = config.blobStore;
  if (c.kind !== 's3') return createLocalBlobStore(config.blobDir, hooks);
  const { createS3BlobStore } = await import('./blob-store-s3.ts');
  return createS3BlobStore({ ...c, hooks });
}

/**
 * The upload channel's staging area: beside the blobs. On S3 several processes on several machines then
 * see the same chunks (a chunk sent to one process, `complete` to another); else `<data dir>/staging`.
 */
export async function createStaging(config: Config): Promise<StagingStore> {
  const c = config.blobStore;
  if (c.kind !== 's3') return createStagingStore(path.join(config.dataDir, 'staging'));
  const [{ createS3Client }, { createS3StagingStore }] = await Promise.all([import('./blob-store-s3.ts'), import('./staging-s3.ts')]);
  return createS3StagingStore({ client: createS3Client(c), bucket: c.bucket, prefix: c.prefix, partSizeBytes: c.partSizeBytes });
}

/** Periodic `collectBlobGarbage` passes; `close` waits for a running pass. intervalMs 0 = off. */
export function createBlobGcSchedule(library: LibraryDeps, graceMs: number, intervalMs: number, log: Logger): { close(): Promise<void> } {
  if (intervalMs === 0) return { close: async () => undefined };
  let running: Promise<unknown> = Promise.resolve();
  const pass = (): void => {
    running = running
      .then(() => collectBlobGarbage({ blobs: library.blobs, referenced: (sha) => library.assets.blobReferenced(sha), graceMs }))
      .then((r) => {
        if (r.removed > 0) log.info(r, 'unreferenced blobs removed');
      })
      .catch((err: unknown) => log.error({ err }, 'blob GC failed'));
  };
  const first = setTimeout(pass, Math.min(60_000, intervalMs));
  const timer = setInterval(pass, intervalMs);
  first.unref();
  timer.unref();
  return {
    async close() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
