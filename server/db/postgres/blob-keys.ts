import { newBlobSecret, publicBlobKey } from '../blob-keys.ts';
import { inTransaction, type PgClient, type PgPool } from './pool.ts';

type Query = Pick<PgClient, 'query'>;

/** Rows `backfill` updates per transaction and table. */
const BACKFILL_BATCH = 500;

/**
 * PostgreSQL queries of public blob keys (migration 0020, server/db/blob-keys.ts): the twin of
 * server/db/sqlite/blob-key-queries.ts. Secrets are cached once read from a committed row (written once, never
 * changed); one made inside a transaction is not, as that transaction may still roll back.
 */
export function createPgBlobKeys(pool: PgPool) {
  const secrets = new Map<string, string>();
  /**
   * The blob secret of a tenant, made (crypto.randomBytes) when it has none yet; `c` is the caller's
   * transaction, so a secret another process made first is the one read back.
   * @throws Error when the tenant does not exist
   */
  const secretOf = async (c: Query, tenantId: string): Promise<string> => {
    const cached = secrets.get(tenantId);
    if (cached) return cached;
    const read = async () =>
      (await c.query<{ s: string | null }>('SELECT blob_secret AS s FROM tenants WHERE id = $1', [tenantId])).rows[0]?.s;
    const stored = await read();
    if (stored) {
      secrets.set(tenantId, stored);
      return stored;
    }
    await c.query('UPDATE tenants SET blob_secret = $1 WHERE id = $2 AND blob_secret IS NULL', [newBlobSecret(), tenantId]);
    const made = await read();
    if (!made) throw new Error(`tenant ${tenantId} does not exist`);
    return made;
  };
  return {
    /** A function giving the public key of a blob for the tenant, its secret read (or made) in `c`. */
    async keysFor(c: Query, tenantId: string): Promise<(sha256: string) => string> {
      const secret = await secretOf(c, tenantId);
      return (sha) => publicBlobKey(secret, sha);
    },
    /** The blob a public key names (an asset or rendition row holds it): its sha256 and stored format, or null. */
    async byKey(key: string): Promise<{ sha256: string; format: string } | null> {
      const r = await pool.query<{ sha256: string; format: string }>(
        `SELECT sha256, format FROM assets WHERE blob_key = $1
         UNION ALL SELECT sha256, format FROM asset_renditions WHERE blob_key = $1 LIMIT 1`,
        [key],
      );
      return r.rows[0] ?? null;
    },
    /** Fill `blob_key` of rows written before migration 0020, in batches. @returns rows updated */
    async backfill(): Promise<number> {
      let n = 0;
      for (;;) {
        const done = await inTransaction(pool, async (c) => {
          // SKIP LOCKED: two processes backfilling at once take disjoint batches
          const assets = (
            await c.query<{ seq: number; tenant_id: string; sha256: string }>(
              'SELECT seq, tenant_id, sha256 FROM assets WHERE blob_key IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED',
              [BACKFILL_BATCH],
            )
          ).rows;
          const renditions = (
            await c.query<{ asset_seq: number; role: string; width: number; sha256: string; tenant_id: string }>(
              `SELECT r.asset_seq, r.role, r.width, r.sha256, a.tenant_id FROM asset_renditions r JOIN assets a ON a.seq = r.asset_seq
               WHERE r.blob_key IS NULL LIMIT $1 FOR UPDATE OF r SKIP LOCKED`,
              [BACKFILL_BATCH],
            )
          ).rows;
          const keyOf = async (tenantId: string, sha: string): Promise<string> => publicBlobKey(await secretOf(c, tenantId), sha);
          for (const r of assets)
            await c.query('UPDATE assets SET blob_key = $1 WHERE seq = $2', [await keyOf(r.tenant_id, r.sha256), r.seq]);
          for (const r of renditions)
            await c.query('UPDATE asset_renditions SET blob_key = $1 WHERE asset_seq = $2 AND role = $3 AND width = $4', [
              await keyOf(r.tenant_id, r.sha256),
              r.asset_seq,
              r.role,
              r.width,
            ]);
          return assets.length + renditions.length;
        });
        if (done === 0) return n;
        n += done;
      }
    },
  };
}
