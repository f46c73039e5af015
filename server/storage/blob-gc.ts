import type { BlobStore } from './blob-store.ts';

/** What one GC pass did. Bytes are file sizes. */
export interface BlobGcReport { scanned: number; removed: number; removed_bytes: number; kept_recent: number }

/**
 * Mark-and-sweep over a content-addressed blob store: remove every blob that no asset or rendition
 * references and whose last write is older than `graceMs`. The grace period protects bytes an import,
 * upload or generation has just written (or re-`put`) but whose row is not inserted yet: the same
 * expiry idea as `git gc --prune=<date>`. Orphans come from deleted assets and failed inserts.
 * @param referenced whether a row names the sha256 (checked per blob, indexed)
 * @param graceMs minimum age (ms) of an unreferenced blob before removal
 */
export async function collectBlobGarbage(o: { blobs: BlobStore; referenced: (sha256: string) => boolean; graceMs: number; now?: number }): Promise<BlobGcReport> {
  const cutoff = (o.now ?? Date.now()) - o.graceMs;
  const report: BlobGcReport = { scanned: 0, removed: 0, removed_bytes: 0, kept_recent: 0 };
  for await (const b of o.blobs.list()) {
    report.scanned++;
    if (o.referenced(b.sha256)) continue;
    if (b.mtimeMs > cutoff) {
      report.kept_recent++;
      continue;
    }
    if (await o.blobs.remove(b.sha256)) {
      report.removed++;
      report.removed_bytes += b.sizeBytes;
    }
  }
  return report;
}
