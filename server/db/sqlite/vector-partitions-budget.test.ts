import { describe, expect, it } from 'vitest';
import { PartitionBudget } from '../../vector-scan/partition-budget.ts';
import { createSqliteAssetStore } from './assets.ts';
import { CONTRACT_SCOPE, contractAsset, OTHER_TENANT, OTHER_WORKSPACE } from '../contract/fixture.ts';
import { CATALOG_SCOPES } from '../contract/product-store-contract.ts';
import { seedContractScopes, sqliteFiles } from '../contract/sqlite-files.ts';
import type { Scope } from '../../domain/scope.ts';
import { createSqliteProductVectors } from './product-vectors.ts';
import { createSqliteProductStore } from './products.ts';
import { syntheticProduct } from '../synthetic-product.ts';
import { createSqliteVectorStore } from './vector-store.ts';

// The memory bound of the in-memory vector partitions on real SQLite files: asset partitions (one per
// space and workspace) and product partitions (one per store and model) share one PartitionBudget; the
// least recently searched are dropped beyond it and reload from the database on their next search,
// answering exactly as before.
const files = sqliteFiles('budget');
const DIMS = 16;
const N = 300;
const workspaces = [CONTRACT_SCOPE, OTHER_WORKSPACE, OTHER_TENANT];

let seed = 11;
const unit = (): Float32Array => {
  const v = Float32Array.from({ length: DIMS }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

/** A file with N assets with vectors in each of the three workspaces and N products with vectors in store-a. @returns the file and 5 queries */
async function seeded(): Promise<{ file: string; queries: Float32Array[] }> {
  const file = files.next();
  const db = files.connect(file);
  seedContractScopes(db);
  db.prepare('INSERT INTO stores (id, tenant_id, workspace_id, name, created_at) VALUES (?, ?, ?, ?, ?)').run(
    'store-a',
    'tenant-a',
    'ws-a',
    'store-a',
    new Date().toISOString(),
  );
  const assets = createSqliteAssetStore(db);
  const vectors = createSqliteVectorStore(db);
  const space = await vectors.ensureSpace('asset_text', 'm', DIMS, 'ready');
  for (const scope of workspaces)
    for (let i = 0; i < N; i++) await vectors.put(scope, space, await assets.insert(contractAsset({}, scope)), unit());
  const seqs = await createSqliteProductStore(db).upsertMany(
    CATALOG_SCOPES.a,
    Array.from({ length: N }, (_, i) => syntheticProduct(i + 1)),
    'json',
    { at: '2026-03-01T10:00:00.000Z', replaceCollections: false },
  );
  await createSqliteProductVectors(db).put(
    'pm',
    seqs.map((seq) => ({ seq: seq, storeId: 'store-a', sha256: 'x', vector: unit() })),
  );
  return { file, queries: Array.from({ length: 5 }, unit) };
}

describe('vector partitions under a memory budget (SQLite)', () => {
  it('drops the least recently searched partitions beyond the budget and answers the same after reloading them', async () => {
    const { file, queries } = await seeded();
    // the size of one asset partition, from a budget that holds everything
    const roomy = new PartitionBudget();
    const probeDb = files.connect(file);
    const probe = createSqliteVectorStore(probeDb, { budget: roomy });
    const [space] = await probe.liveSpaces('asset_text');
    await probe.nearest(CONTRACT_SCOPE, space!, queries[0]!, 10, {});
    const partitionBytes = roomy.bytes;
    expect(partitionBytes).toBeGreaterThan(N * DIMS * 4);

    // room for two partitions, not three
    const budget = new PartitionBudget(Math.floor(partitionBytes * 2.5));
    const db = files.connect(file);
    const vectors = createSqliteVectorStore(db, { budget });
    const products = createSqliteProductVectors(db, budget);
    const answers = (scope: Scope) => Promise.all(queries.map((q) => vectors.nearest(scope, space!, q, 10, {})));
    const before = new Map<Scope, Awaited<ReturnType<typeof answers>>>();
    for (const scope of workspaces) before.set(scope, await answers(scope));
    // searching the third workspace dropped the least recently searched partition (ws-a)
    expect(budget.partitions).toBe(2);
    expect(budget.bytes).toBeLessThanOrEqual(budget.maxBytes);

    // ws-a is not in memory: a row changed behind the change log's back (test only; a loaded partition
    // would not see it) shows in its next search, which reloads it from the database
    const [far] = before.get(CONTRACT_SCOPE)![0]!.slice(-1);
    const row = db
      .prepare(`SELECT kind, category, subtype FROM vec_space_${space!.id} WHERE asset_seq = ?`)
      .get(BigInt(far!.seq)) as object;
    db.prepare(`DELETE FROM vec_space_${space!.id} WHERE asset_seq = ?`).run(BigInt(far!.seq));
    db.prepare(
      `INSERT INTO vec_space_${space!.id} (asset_seq, workspace_id, kind, category, subtype, embedding) VALUES (@seq, 'ws-a', @kind, @category, @subtype, @v)`,
    ).run({ ...row, seq: BigInt(far!.seq), v: Buffer.from(queries[0]!.slice().buffer) });
    expect((await vectors.nearest(CONTRACT_SCOPE, space!, queries[0]!, 1, {}))[0]).toEqual({
      seq: far!.seq,
      similarity: expect.closeTo(1, 5),
    });
    expect(budget.partitions).toBe(2);

    // the other workspaces, each dropped by the search before, reload and answer exactly as before
    for (const scope of [OTHER_WORKSPACE, OTHER_TENANT]) {
      expect(await answers(scope)).toEqual(before.get(scope));
      expect(budget.partitions).toBe(2);
      expect(budget.bytes).toBeLessThanOrEqual(budget.maxBytes);
    }

    // product partitions share the budget: loading the store's drops the least recently searched asset
    // partition (ws-b); searching ws-c, then ws-b again drops the product partition, which reloads the same
    const filters = { statuses: ['ACTIVE' as const] };
    const hits = await products.nearest(CATALOG_SCOPES.a, 'pm', queries[1]!, 5, filters);
    expect(hits).toHaveLength(5);
    expect(budget.partitions).toBe(2);
    expect(budget.bytes).toBeLessThanOrEqual(budget.maxBytes);
    for (const scope of [OTHER_TENANT, OTHER_WORKSPACE]) expect(await answers(scope)).toEqual(before.get(scope));
    expect(await products.nearest(CATALOG_SCOPES.a, 'pm', queries[1]!, 5, filters)).toEqual(hits);
  });
});
