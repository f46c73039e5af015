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
