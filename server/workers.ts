import type { Config } from './config.ts';
import type { LibraryDeps } from './assets/deps.ts';
import type { UploadService } from './assets/upload.ts';
import type { Catalog } from './catalog/catalog.ts';
import type { OAuthStore } from './db/ports/oauth-store.ts';
import type { Enrichment } from './enrichment/service.ts';
import type { Logger } from './log.ts';
import type { ToolTasks } from './mcp/tasks.ts';
import { createBlobGcSchedule } from './storage/configured.ts';

/** What the background workers run on: the services they start and the stores they sweep. */
export interface WorkerDeps {
  config: Config;
  log: Logger;
  library: LibraryDeps;
  enrichment: Pick<Enrichment, 'start'> | null;
  catalog: Pick<Catalog, 'start'>;
  uploads: Pick<UploadService, 'sweep'>;
  oauth: Pick<OAuthStore, 'sweep'>;
  tasks: Pick<ToolTasks, 'sweep'>;
}

/** The background workers of a long-running server. */
export interface Workers {
  /** Start them: the enrichment job runner, the catalog embedding backfill, the sweeper and the blob GC; idempotent. */
  start(): void;
  /** Stop the sweeper and the blob GC, waiting for a running pass (the enrichment runner and the catalog close with their services). */
  close(): Promise<void>;
}

/**
 * The background workers, started only by `start` (serve/start): a one-shot CLI command opens the same
 * core without claiming jobs. One sweep on one timer (ATELIER_UPLOAD_SWEEP_MS): expired upload sessions
 * with their bytes, then expired OAuth state (codes, sessions, tokens past their expiry: read as absent
 * already, deleted here so the table stays small), then tool tasks past their TTL (likewise); a failing
 * sweep is logged and the next ones still run. Blob GC: files of deleted assets and failed inserts, after
 * a grace period (first pass after a minute).
 */
export function createWorkers(d: WorkerDeps): Workers {
  const { config, log } = d;
  let running: { close(): Promise<void> } | null = null;
  return {
    start(): void {
      if (running) return;
      d.enrichment?.start();
      d.catalog.start();
      const sweep = async (): Promise<void> => {
        await d.uploads.sweep().catch((err: unknown) => log.error({ err }, 'upload sweep failed'));
        await d.oauth.sweep().catch((err: unknown) => log.error({ err }, 'OAuth state sweep failed'));
        await d.tasks.sweep().catch((err: unknown) => log.error({ err }, 'tool task sweep failed'));
      };
      let sweeping: Promise<unknown> = sweep();
      const sweeper = setInterval(() => {
        sweeping = sweeping.then(sweep);
      }, config.env.ATELIER_UPLOAD_SWEEP_MS);
      sweeper.unref();
      const blobGc = createBlobGcSchedule(
        d.library,
        config.env.ATELIER_BLOB_GC_GRACE_MS,
        config.env.ATELIER_BLOB_GC_INTERVAL_MS,
        log.child({ mod: 'blob-gc' }),
      );
      running = {
        async close() {
          clearInterval(sweeper);
          await sweeping;
          await blobGc.close();
        },
      };
    },
    async close(): Promise<void> {
      await running?.close();
    },
  };
}
