import type { Database } from 'better-sqlite3';
import type { StorageUsage } from '../ports/storage-quota.ts';

/**
 * A tenant's storage usage on SQLite (server/db/ports/storage-quota.ts says what counts). The asset sums
 * walk the tenant's prefix of assets_scope_seq (migration 0045) and each asset's renditions by primary
 * key; the staged sum walks uploads_scope (migration 0005). Call it inside the write transaction the
 * check guards (BEGIN IMMEDIATE), so no other writer commits in between.
 * @returns `(tenantId, nowMs, exceptUploadId?)` → usage in bytes
 */
export function storageUsageQuery(db: Database): (tenantId: string, nowMs: number, exceptUploadId?: string) => StorageUsage {
  const q = db.prepare(
    `SELECT
       (SELECT coalesce(sum(size_bytes), 0) FROM assets WHERE tenant_id = @t)
       + (SELECT coalesce(sum(r.size_bytes), 0) FROM assets a JOIN asset_renditions r ON r.asset_seq = a.seq WHERE a.tenant_id = @t) AS assetBytes,
       (SELECT coalesce(sum(size_bytes), 0) FROM uploads
         WHERE tenant_id = @t AND status IN ('receiving', 'staged') AND expires_at_ms > @now AND id <> @except) AS stagedBytes`,
  );
  return (tenantId, nowMs, exceptUploadId) =>
    q.get({ t: tenantId, now: nowMs, except: exceptUploadId?.toLowerCase() ?? '' }) as StorageUsage;
}
