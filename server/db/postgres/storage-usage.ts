import type { StorageUsage } from '../ports/storage-quota.ts';
import type { PgClient, PgPool } from './pool.ts';

/**
 * A tenant's storage usage on PostgreSQL (server/db/ports/storage-quota.ts says what counts).
 * @param c the pool, or the client of the write transaction the check guards (after `lockTenantUsage`)
 * @returns usage in bytes
 */
export async function pgStorageUsage(
  c: PgPool | PgClient,
  tenantId: string,
  nowMs: number,
  exceptUploadId?: string,
): Promise<StorageUsage> {
  const r = await c.query<{ asset_bytes: string; staged_bytes: string }>(
    `SELECT
       (SELECT coalesce(sum(size_bytes), 0) FROM assets WHERE tenant_id = $1)
       + (SELECT coalesce(sum(r.size_bytes), 0) FROM assets a JOIN asset_renditions r ON r.asset_seq = a.seq WHERE a.tenant_id = $1) AS asset_bytes,
       (SELECT coalesce(sum(size_bytes), 0) FROM uploads
         WHERE tenant_id = $1 AND status IN ('receiving', 'staged') AND expires_at_ms > $2 AND id <> $3) AS staged_bytes`,
    [tenantId, nowMs, exceptUploadId?.toLowerCase() ?? ''],
  );
  const row = r.rows[0]!;
  return { assetBytes: Number(row.asset_bytes), stagedBytes: Number(row.staged_bytes) };
}

/**
 * Serialise the quota-checked writes of one tenant: lock its row FOR NO KEY UPDATE until the transaction
 * ends. Under READ COMMITTED each later statement reads a fresh snapshot, so the usage read after the
 * lock includes every write of the tenant that committed before it; inserts that only reference the
 * tenant (FOR KEY SHARE) do not wait for it.
 */
export async function lockTenantUsage(c: PgClient, tenantId: string): Promise<void> {
  await c.query('SELECT 1 FROM tenants WHERE id = $1 FOR NO KEY UPDATE', [tenantId]);
}
