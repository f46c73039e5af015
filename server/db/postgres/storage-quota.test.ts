import { createHash, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { contractAsset } from '../contract/fixture.ts';
import type { NewAsset } from '../ports/asset-store.ts';
import { QuotaExceededError } from '../ports/storage-quota.ts';
import { createPgAssetStore } from './assets.ts';
import { lockTenantUsage } from './storage-usage.ts';
import { createTestSchema, type TestSchema } from '../contract/pg-test-database.ts';

// What only the PostgreSQL store must show about the storage quota (ports/storage-quota.ts): under READ
// COMMITTED, a quota-checked insert in one workspace waits for a quota-checked write of the same tenant
// in another workspace and then counts it (the inserts of two workspaces lock different workspace rows,
// so only the tenant row serialises them). SQLite's BEGIN IMMEDIATE gives that for free; the MCP
// behaviour tests (e2e/mcp/storage-quota.test.ts) cover the rest on both backends.
const schemas: TestSchema[] = [];
afterAll(async () => {
  await Promise.all(schemas.map((s) => s.drop()));
});

/** A 2000-byte PNG of tenant-a in `workspaceId` with one 1000-byte rendition (3000 bytes against the quota). */
const asset = (workspaceId: string): NewAsset => {
  const base = contractAsset({ format: 'png', mime_type: 'image/png', size_bytes: 2000 }, { tenantId: 'tenant-a', workspaceId });
  return { ...base, renditions: [{ role: 'webp', width: 10, height: 10, format: 'webp', sha256: base.source_sha256, size_bytes: 1000 }] };
};

describe('PostgreSQL storage quota: checked writes of one tenant are serialised', () => {
  it('an insert waits for another workspace’s write in progress, then counts it and is refused', async () => {
    const schema = await createTestSchema();
    schemas.push(schema);
    const admin = schema.pool(1);
    await admin.query(`INSERT INTO tenants (id, name, created_at) VALUES ('tenant-a', 'a', now())`);
    for (const ws of ['ws-a', 'ws-b'])
      await admin.query(`INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES ($1, 'tenant-a', $1, now())`, [ws]);
    const store = createPgAssetStore(schema.pool(2));
    const quota = { limitBytes: 5000, nowMs: Date.now() };
    // "another process" holds the tenant's quota lock and has begun a 3000-byte upload in workspace B, uncommitted
    const other = await schema.pool(1).connect();
    await other.query('BEGIN');
    await lockTenantUsage(other, 'tenant-a');
    await other.query(
      `INSERT INTO uploads (id, tenant_id, workspace_id, status, filename, size_bytes, sha256, chunk_size_bytes, chunk_count, created_at, updated_at, expires_at_ms)
       VALUES ($1, 'tenant-a', 'ws-b', 'receiving', 'b.png', 3000, $2, 1024, 3, now(), now(), $3)`,
      [randomUUID(), createHash('sha256').update('b').digest('hex'), Date.now() + 3_600_000],
    );
    let settled = false;
    const checked = store.insert(asset('ws-a'), { quota }).finally(() => (settled = true));
    checked.catch(() => undefined);
    try {
      // the checked insert (3000 bytes: fits alone) waits on the tenant row; unlocked, it would read 0 bytes used and pass
      const waiting = async (): Promise<boolean> =>
        (
          await admin.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM tenants WHERE id%'`,
          )
        ).rows[0]!.n > 0;
      for (let i = 0; i < 250 && !settled && !(await waiting()); i++) await new Promise((r) => setTimeout(r, 20));
      expect(settled).toBe(false);
      await other.query('COMMIT');
    } finally {
      await other.query('ROLLBACK').catch(() => undefined); // (after a failed expectation: let the schema drop)
      other.release();
    }
    const e = await checked.then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(QuotaExceededError);
    expect(e).toMatchObject({ limitBytes: 5000, requestedBytes: 3000, usage: { assetBytes: 0, stagedBytes: 3000 } });
    expect((await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM assets WHERE workspace_id = 'ws-a'`)).rows[0]!.n).toBe(0);
  });
});
