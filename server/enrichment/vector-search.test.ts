import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteAssetStore } from '../db/sqlite/assets.ts';
import { inSqliteTransaction } from '../db/sqlite/batch-transaction.ts';
import { syntheticAsset } from '../db/synthetic-asset.ts';
import { openDb, type Database } from '../db/sqlite/connection.ts';
import { createSqliteTenancyStore } from '../db/sqlite/tenancy.ts';
import { createSqliteVectorStore } from '../db/sqlite/vector-store.ts';
import type { SpaceRow } from '../db/ports/vector-store.ts';
import { createTenant } from '../tenancy/admin.ts';
import { OVERSAMPLE } from '../vector-scan/quantised-index.ts';

/**
 * Real SQLite + sqlite-vec as the storage of record, searched through the quantised in-memory partition
 * (int8 WebAssembly scan + exact re-rank): on this fixed set the hits must equal an exact filtered scan,
 * however selective the filter, and follow writes made through another connection (another process).
 */
describe('nearest (quantised partition scan)', () => {
  const N = 6000;
  const DIMS = 8;
  let db: Database;
  let space: SpaceRow;
  let scope: { tenantId: string; workspaceId: string };
  let vecs: Float32Array[];
  /** A new store on the connection, with partitions of its own (loaded on its first search). */
  const vq = () => createSqliteVectorStore(db);
  let s = 7;
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
  const unit = () => {
    const v = Float32Array.from({ length: DIMS }, rand);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-nearest-'));
    db = openDb(path.join(dir, 'db.sqlite'));
    const t = await createTenant(createSqliteTenancyStore(db), 't');
    const other = await createTenant(createSqliteTenancyStore(db), 'other');
    scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id };
    const assets = createSqliteAssetStore(db);
    const vectors = vq();
    space = await vectors.ensureSpace('asset_text', 'test', DIMS, 'ready');
    vecs = [];
    const owners: { seq: number; scope: { tenantId: string; workspaceId: string } }[] = [];
    await inSqliteTransaction(db, async () => {
      for (let i = 0; i < N; i++) {
        const mine = i % 10 !== 0;
        // 1 in 250 of this workspace's assets is an svg; 1 in 4 a background
        const seq = await assets.insert(
          syntheticAsset(i, mine ? t : other, { kind: i % 250 === 1 ? 'svg' : 'image', category: i % 4 === 0 ? 'background' : null }),
        );
        const v = unit();
        vecs[seq] = v;
        owners.push({ seq, scope: { tenantId: (mine ? t : other).tenant_id, workspaceId: (mine ? t : other).workspace_id } });
      }
    });
    // the vectors through the port, in one transaction (each put is a savepoint inside it)
    await inSqliteTransaction(db, async () => {
      for (const o of owners) await vectors.put(o.scope, space, o.seq, vecs[o.seq]!);
    });
  });
  afterAll(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const exact = (q: Float32Array, keep: (seq: number) => boolean, k: number, floor: number): { seq: number; sim: number }[] => {
    const rows = db
      .prepare('SELECT seq, kind, category FROM assets WHERE tenant_id = ? AND workspace_id = ?')
      .all(scope.tenantId, scope.workspaceId) as { seq: number }[];
    return rows
      .filter((r) => keep(r.seq))
      .map((r) => ({ seq: r.seq, sim: vecs[r.seq]!.reduce((acc, x, i) => acc + x * q[i]!, 0) }))
      .filter((h) => h.sim >= floor)
      .sort((a, b) => b.sim - a.sim)
      .slice(0, k);
  };
  /** Same hits in the same order, up to float32-vs-float64 rounding between near-ties. */
  const expectSame = (got: { seq: number; similarity: number }[], want: { seq: number; sim: number }[]): void => {
    expect(new Set(got.map((h) => h.seq))).toEqual(new Set(want.map((h) => h.seq)));
    got.forEach((h, i) => expect(Math.abs(h.similarity - want[i]!.sim)).toBeLessThan(1e-5));
  };
  const kindOf = (seq: number): string => (db.prepare('SELECT kind FROM assets WHERE seq = ?').get(seq) as { kind: string }).kind;
  const catOf = (seq: number): string | null =>
    (db.prepare('SELECT category FROM assets WHERE seq = ?').get(seq) as { category: string | null }).category;

  it('equals the exact answer (quantised scan) without filters, with a 25% filter, a 0.4% filter and a snapshot bound', async () => {
    const v = vq();
    for (let i = 0; i < 5; i++) {
      const q = unit();
      // 5,400 rows of the workspace: more than OVERSAMPLE·k, so the int8 scan picks the candidates
      expect(N * 0.9).toBeGreaterThan(OVERSAMPLE * 500);
      expectSame(
        await v.nearest(scope, space, q, 10, {}, -1),
        exact(q, () => true, 10, -1),
      );
      expectSame(
        await v.nearest(scope, space, q, 500, {}, -1),
        exact(q, () => true, 500, -1),
      );
      expectSame(
        await v.nearest(scope, space, q, 50, { category: 'background' }, -1),
        exact(q, (x) => catOf(x) === 'background', 50, -1),
      );
      const svg = await v.nearest(scope, space, q, 500, { kind: 'svg' }, -1);
      expect(svg.length).toBeGreaterThan(10);
      expectSame(
        svg,
        exact(q, (x) => kindOf(x) === 'svg', 500, -1),
      );
      expectSame(
        await v.nearest(scope, space, q, 20, { maxSeq: 3000, excludeSeq: 2 }, -1),
        exact(q, (x) => x <= 3000 && x !== 2, 20, -1),
      );
    }
  });

  it('follows writes of another connection through the search_changes log', async () => {
    const v = vq();
    // a direction no stored vector has (the generator above repeats itself)
    const q = Float32Array.from({ length: DIMS }, (_, i) => (i + 1) / Math.sqrt((DIMS * (DIMS + 1) * (2 * DIMS + 1)) / 6));
    const before = await v.nearest(scope, space, q, 5, {}, -1);
    const top = before[0]!.seq;
    const other = openDb(path.join(dir, 'db.sqlite'));
    try {
      // another process: re-categorise the nearest asset, delete the second, give a third the query's own vector
      other.prepare("UPDATE assets SET category = 'texture' WHERE seq = ?").run(top);
      other.prepare('DELETE FROM assets WHERE seq = ?').run(before[1]!.seq);
      const third = before[4]!.seq;
      expect(await createSqliteVectorStore(other).put(scope, space, third, q)).toBe(true);
      vecs[third] = q;
      const after = await v.nearest(scope, space, q, 5, {}, -1);
      expect(after[0]!.seq).toBe(third);
      expect(after.map((h) => h.seq)).not.toContain(before[1]!.seq);
      expect((await v.nearest(scope, space, q, 5, { category: 'texture' }, -1)).map((h) => h.seq)).toEqual([top]);
      expect(await v.count(scope, space)).toBe(N * 0.9 - 1);
    } finally {
      other.close();
    }
  });

  it('stops at the relevance floor and never returns another workspace', async () => {
    const q = unit();
    const hits = await vq().nearest(scope, space, q, 500, {}, 0.8);
    expect(hits.every((h) => h.similarity >= 0.8)).toBe(true);
    expectSame(
      hits,
      exact(q, () => true, 500, 0.8),
    );
    expect(hits.every((h) => h.seq % 10 !== 1)).toBe(true);
  });
});
