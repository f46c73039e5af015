import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSqliteAssetStore } from './asset-store.ts';
import { seedContractScopes, sqliteFiles } from './contract/sqlite-files.ts';
import { vectorStoreContract } from './contract/vector-store-contract.ts';
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
});
