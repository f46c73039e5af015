import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSqliteAssetStore } from './assets.ts';
import { CONTRACT_SCOPE, contractAsset } from '../contract/fixture.ts';
import { seedContractScopes, sqliteFiles } from '../contract/sqlite-files.ts';
import { vectorStoreContract } from '../contract/vector-store-contract.ts';
import { createSqliteVectorStore } from './vector-store.ts';

// The SQLite VectorStore (sqlite-vec spaces searched by the quantised partitions) against the contract
// the PostgreSQL store passes on PGlite (postgres/vector-store.test.ts). Each case gets a fresh migrated
// database file; "another process" is a second connection with partitions of its own.
const files = sqliteFiles('vectors');

vectorStoreContract('SQLite', {
  async create() {
    const file = files.next();
    const db = files.connect(file);
    seedContractScopes(db);
    return {
      vectors: createSqliteVectorStore(db),
      assets: createSqliteAssetStore(db),
      open: async () => createSqliteVectorStore(files.connect(file)),
    };
  },
});

describe('SQLite vector spaces', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('returns a new space with the created_at it stored, whenever the clock ticks', async () => {
    const db = files.connect(files.next());
    seedContractScopes(db);
    const vectors = createSqliteVectorStore(db);
    // a clock that moves 1 ms on every reading: two readings for one row would disagree
    const RealDate = Date;
    let t = RealDate.parse('2026-01-01T00:00:00.000Z');
    vi.stubGlobal(
      'Date',
      class extends RealDate {
        constructor(...a: unknown[]) {
          if (a.length === 0) super(t++);
          else super(...(a as [string]));
        }
      },
    );
    const space = await vectors.ensureSpace('asset_text', 'model-a', 4, 'ready');
    vi.unstubAllGlobals();
    expect(await vectors.liveSpaces('asset_text')).toEqual([space]);
  });

  it('takes the change-log head a request read: answers as of it without reading the log, and never goes back for an older one', async () => {
    const file = files.next();
    const db = files.connect(file);
    seedContractScopes(db);
    const vectors = createSqliteVectorStore(db);
    const assets = createSqliteAssetStore(db);
    const space = await vectors.ensureSpace('asset_text', 'model-a', 4, 'ready');
    const first = await assets.insert(contractAsset());
    await vectors.put(CONTRACT_SCOPE, space, first, Float32Array.from([1, 0, 0, 0]));
    const before = (await assets.searchSnapshot(CONTRACT_SCOPE)).changeHead;
    const q = Float32Array.from([1, 1, 0, 0]);
    const seqs = async (head: number): Promise<number[]> =>
      (await vectors.nearest(CONTRACT_SCOPE, space, q, 10, {}, -1, head)).map((h) => h.seq);
    expect(await vectors.count(CONTRACT_SCOPE, space, before)).toBe(1);
    // a second process adds an asset and its vector
    const other = files.connect(file);
    const second = await createSqliteAssetStore(other).insert(contractAsset());
    expect(await createSqliteVectorStore(other).put(CONTRACT_SCOPE, space, second, Float32Array.from([0, 1, 0, 0]))).toBe(true);
    // a request that read its head before that write answers without it (no log read of its own) …
    expect(await vectors.count(CONTRACT_SCOPE, space, before)).toBe(1);
    expect(await seqs(before)).toEqual([first]);
    // … one that read it after sees it
    const after = (await assets.searchSnapshot(CONTRACT_SCOPE)).changeHead;
    expect(after).toBeGreaterThan(before);
    expect(await vectors.count(CONTRACT_SCOPE, space, after)).toBe(2);
    expect((await seqs(after)).sort((a, b) => a - b)).toEqual([first, second].sort((a, b) => a - b));
    // and a slower request still holding the older head gets the partition as it is now, not one taken back
    expect(await vectors.count(CONTRACT_SCOPE, space, before)).toBe(2);
    // without a head the store reads the log itself
    expect(await vectors.count(CONTRACT_SCOPE, space)).toBe(2);
  });
});
