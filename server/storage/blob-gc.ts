import type { TestHooks } from '../test-hooks.ts';
import type { BlobStore } from './blob-store.ts';

/** What one GC pass did. Bytes are file sizes; `removed` counts blobs and leftover temp files. */
export interface BlobGcReport {
  scanned: number;
  removed: number;
  removed_bytes: number;
  kept_recent: number;
}

/**
 * Mark-and-sweep over a content-addressed blob store: remove every blob that no asset or rendition
 * references and whose last write is older than `graceMs`. The grace period protects bytes an import,
 * upload or generation has just written (or re-`put`) but whose row is not inserted yet: the same
 * expiry idea as `git gc --prune=<date>`. Orphans come from deleted assets and failed inserts.
 * The decision is made again after the blob is moved aside (`removeIfUnused`), so a `put` or an insert
 * that happens while the pass runs keeps its bytes. Temp files of writes that died before their rename
 * are removed past the same grace period (S3: incomplete multipart uploads, aborted); blobs a killed pass
 * had moved aside go back when referenced, and are dropped past the grace period otherwise.
 * Race safety on every backend also needs the writer's half (assets/import.ts): a `put` that only
 * renewed existing bytes is followed, after the row commits, by `has` and a new `put` when they are gone.
 * @param referenced whether a row names the sha256 (checked per blob, indexed)
 * @param graceMs minimum age (ms) of an unreferenced blob or temp file before removal
 * @param hooks TEST ONLY pause point `blob-gc-remove` (after the first decision, before the removal)
 */
export async function collectBlobGarbage(o: {
  blobs: BlobStore;
  referenced: (sha256: string) => boolean | Promise<boolean>;
  graceMs: number;
  now?: number;
  hooks?: TestHooks;
}): Promise<BlobGcReport> {
  const cutoff = (o.now ?? Date.now()) - o.graceMs;
  const report: BlobGcReport = { scanned: 0, removed: 0, removed_bytes: 0, kept_recent: 0 };
  for await (const b of o.blobs.list()) {
    report.scanned++;
    if (await o.referenced(b.sha256)) continue;
    if (b.mtimeMs > cutoff) {
      report.kept_recent++;
      continue;
    }
    await o.hooks?.pause('blob-gc-remove');
    const bytes = await o.blobs.removeIfUnused(b.sha256, async (mtimeMs) => mtimeMs <= cutoff && !(await o.referenced(b.sha256)));
    if (bytes > 0) {
      report.removed++;
      report.removed_bytes += bytes;
    }
  }
  for await (const f of o.blobs.leftovers()) {
    if (f.kind === 'gc') {
      // A pass that died between moving a blob aside and deciding: decide now. Restoring is always safe;
      // dropping the copy aside waits for the grace period, since a pass of another process may be deciding
      // about it now (and restores from it: dropping it then would lose the bytes).
      if (await o.referenced(f.sha256)) await o.blobs.restoreLeftover(f.name, { keep: f.mtimeMs > cutoff });
      else if (f.mtimeMs <= cutoff && (await o.blobs.removeLeftover(f.name))) {
        report.removed++;
        report.removed_bytes += f.sizeBytes;
      }
    } else if (f.mtimeMs <= cutoff && (await o.blobs.removeLeftover(f.name))) {
      report.removed++;
      report.removed_bytes += f.sizeBytes;
    }
  }
  return report;
}
