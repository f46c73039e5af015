import { createHash, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { NewAsset } from '../ports/asset-store.ts';
import { createPgAssetStore } from './assets.ts';
import { createTestSchema, type TestSchema } from '../contract/pg-test-database.ts';

// What only the PostgreSQL store must show: within a workspace assets become visible in seq order (the
// SQLite single writer gives it for free), so a cursor's snapshot bound (`seq <= maxSeq`) never gains a
// row later; and a seq past 2^53 − 1 is refused, not rounded. The contract suite
// (aggregate-stores.test.ts) covers everything else.
const schemas: TestSchema[] = [];
afterAll(async () => {
  await Promise.all(schemas.map((s) => s.drop()));
});

const scope = { tenantId: 'tenant-a', workspaceId: 'ws-a' };
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const asset = (k: string): NewAsset => ({
  id: randomUUID(),
  tenant_id: scope.tenantId,
  workspace_id: scope.workspaceId,
  kind: 'image',
  format: 'png',
  mime_type: 'image/png',
  width: 10,
  height: 10,
  size_bytes: 100,
  sha256: sha(`o ${k}`),
  source_sha256: sha(`s ${k}`),
  converted_from: null,
  name: `${k}.png`,
  name_words: k,
  alt_text: null,
  tags: [],
  purpose: null,
  category: null,
  subtype: null,
  user_fields: [],
  source: 'upload',
  source_url: null,
  provenance: null,
  enrichment_status: 'pending',
  created_at: new Date().toISOString(),
  // several statements per insert transaction widen the window between taking a seq and committing
  renditions: [320, 640, 960, 1280].map((w) => ({
    role: 'webp',
    width: w,
    height: w,
    format: 'webp',
    sha256: sha(`${w} ${k}`),
    size_bytes: w,
  })),
});

describe('PostgreSQL AssetStore: seq order is commit order within a workspace', () => {
  it('no snapshot of the workspace ever gains a row below its highest seq, under concurrent writers of four processes', async () => {
    const schema = await createTestSchema();
    schemas.push(schema);
    const admin = schema.pool(1);
    await admin.query(`INSERT INTO tenants (id, name, created_at) VALUES ('tenant-a', 'a', now())`);
    await admin.query(`INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES ('ws-a', 'tenant-a', 'a', now())`);
    const writers = Array.from({ length: 4 }, () => createPgAssetStore(schema.pool(4)));
    const reader = createPgAssetStore(schema.pool(1));
    let writing = true;
    const snapshots: Set<number>[] = [];
    const reading = (async () => {
      while (writing) snapshots.push(new Set((await reader.browse(scope, {}, 0, 100000)).rows.map((r) => r.seq)));
    })();
    await Promise.all(writers.flatMap((w, i) => Array.from({ length: 40 }, (_, j) => w.insert(asset(`${i}-${j}`)))));
    writing = false;
    await reading;
    expect(snapshots.length).toBeGreaterThan(1);
    const late: number[] = [];
    for (let i = 1; i < snapshots.length; i++) {
      const before = snapshots[i - 1]!;
      const bound = Math.max(0, ...before);
      for (const seq of snapshots[i]!) if (seq < bound && !before.has(seq)) late.push(seq);
    }
    expect(late).toEqual([]);
  });
});

describe('PostgreSQL AssetStore: seqs are exact JS numbers', () => {
  it('the last seq a JS number holds exactly (2^53 − 1) is used; the next insert fails with RangeError and writes nothing', async () => {
    const schema = await createTestSchema();
    schemas.push(schema);
    const pool = schema.pool(2);
    await pool.query(`INSERT INTO tenants (id, name, created_at) VALUES ('tenant-a', 'a', now())`);
    await pool.query(`INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES ('ws-a', 'tenant-a', 'a', now())`);
    await pool.query(`SELECT setval(pg_get_serial_sequence('assets', 'seq'), $1)`, [Number.MAX_SAFE_INTEGER - 1]);
    const store = createPgAssetStore(pool);
    const last = asset('last');
    expect(await store.insert(last)).toBe(Number.MAX_SAFE_INTEGER);
    expect((await store.byId(scope, last.id))!.seq).toBe(Number.MAX_SAFE_INTEGER);
    const past = asset('past');
    await expect(store.insert(past)).rejects.toThrow(RangeError);
    expect((await pool.query<{ n: number }>('SELECT count(*) AS n FROM assets')).rows[0]!.n).toBe(1);
  });
});
