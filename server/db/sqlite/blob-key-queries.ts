import type { Database } from 'better-sqlite3';
import { newBlobSecret, publicBlobKey } from '../blob-keys.ts';

/** Rows `backfill` updates per transaction. */
const BACKFILL_BATCH = 500;

/**
 * SQLite queries of public blob keys (migration 0062, server/db/blob-keys.ts): the tenant secrets, the
 * `/a/<key>` lookup and the backfill of rows written before the keys existed. Secrets are cached once
 * read: a tenant's secret is written once and never changes.
 */
export function createBlobKeyQueries(db: Database) {
  const s = {
    secret: db.prepare('SELECT blob_secret FROM tenants WHERE id = ?').pluck(),
    setSecret: db.prepare('UPDATE tenants SET blob_secret = ? WHERE id = ? AND blob_secret IS NULL'),
    // assets_blob_key, asset_renditions_blob_key (migration 0062)
    byKey: db.prepare(
      `SELECT sha256, format FROM assets WHERE blob_key = ?
       UNION ALL SELECT sha256, format FROM asset_renditions WHERE blob_key = ? LIMIT 1`,
    ),
  };
  const secrets = new Map<string, string>();
  /**
   * The blob secret of a tenant, made (crypto.randomBytes) when it has none yet. Call inside the write
   * transaction that uses it, so a secret made by another process first is the one read back.
   * @throws Error when the tenant does not exist
   */
  const secretOf = (tenantId: string): string => {
    const cached = secrets.get(tenantId);
    if (cached) return cached;
    const stored = s.secret.get(tenantId) as string | null | undefined;
    if (stored) {
      secrets.set(tenantId, stored);
      return stored;
    }
    // not cached yet: the transaction that writes it may still roll back
    s.setSecret.run(newBlobSecret(), tenantId);
    const made = s.secret.get(tenantId) as string | null | undefined;
    if (!made) throw new Error(`tenant ${tenantId} does not exist`);
    return made;
  };
  return {
    /** The public key of blob `sha256` for a tenant (the tenant's secret made on first use); inside a write transaction. */
    keyOf: (tenantId: string, sha256: string): string => publicBlobKey(secretOf(tenantId), sha256),
    /** The blob a public key names (an asset or rendition row holds it): its sha256 and stored format, or null. */
    byKey: (key: string): { sha256: string; format: string } | null =>
      (s.byKey.get(key, key) as { sha256: string; format: string } | undefined) ?? null,
    /**
     * Fill `blob_key` of asset and rendition rows written before migration 0062, in batches of 500.
     * @returns rows updated
     */
    backfill(): number {
      const batch = db.transaction((): number => {
        const assets = db.prepare(`SELECT seq, tenant_id, sha256 FROM assets WHERE blob_key IS NULL LIMIT ${BACKFILL_BATCH}`).all() as {
          seq: number;
          tenant_id: string;
          sha256: string;
        }[];
        const setAsset = db.prepare('UPDATE assets SET blob_key = ? WHERE seq = ?');
        for (const r of assets) setAsset.run(publicBlobKey(secretOf(r.tenant_id), r.sha256), r.seq);
        const renditions = db
          .prepare(
            `SELECT r.asset_seq, r.role, r.width, r.sha256, a.tenant_id FROM asset_renditions r JOIN assets a ON a.seq = r.asset_seq
             WHERE r.blob_key IS NULL LIMIT ${BACKFILL_BATCH}`,
          )
          .all() as { asset_seq: number; role: string; width: number; sha256: string; tenant_id: string }[];
        const setRendition = db.prepare('UPDATE asset_renditions SET blob_key = ? WHERE asset_seq = ? AND role = ? AND width = ?');
        for (const r of renditions) setRendition.run(publicBlobKey(secretOf(r.tenant_id), r.sha256), r.asset_seq, r.role, r.width);
        return assets.length + renditions.length;
      });
      let n = 0;
      for (;;) {
        const done = batch.immediate();
        if (done === 0) return n;
        n += done;
      }
    },
  };
}
