import { createSqliteAssetStore } from './assets.ts';
import type { Database } from './connection.ts';
import { assetLexicalIndexContract } from '../contract/asset-lexical-index-contract.ts';
import { assetStoreContract, type AssetStoreFixture } from '../contract/asset-store-contract.ts';
import type { StoreFixture } from '../contract/fixture.ts';
import { seedContractScopes, sqliteFiles } from '../contract/sqlite-files.ts';
import { tenancyStoreContract } from '../contract/tenancy-store-contract.ts';
import { createLexicalIndexes } from './lexical-index.ts';
import { createSqliteTenancyStore } from './tenancy.ts';

// The SQLite adapters of the aggregate ports (tenancy, assets) against their contracts
// (server/db/contract/); the PostgreSQL implementations run the same suites in
// postgres/aggregate-stores.test.ts. Each store gets a fresh, migrated database file with foreign keys
// on; "another process" is a second connection to the same file.
const files = sqliteFiles('aggregate');

function fixture<S>(make: (db: Database) => S): StoreFixture<S> {
  return {
    async create() {
      const file = files.next();
      return { store: make(files.connect(file)), open: async () => make(files.connect(file)) };
    },
  };
}

tenancyStoreContract('SQLite', fixture(createSqliteTenancyStore));

const assetFixture: AssetStoreFixture = {
  async create() {
    const { store: db, open: openAgain } = await fixture((d) => d).create();
    seedContractScopes(db);
    return {
      store: createSqliteAssetStore(db),
      open: async () => createSqliteAssetStore(await openAgain()),
      async setMachineAltText(seq, text) {
        db.prepare(
          `INSERT INTO asset_enrichment (asset_seq, machine_alt_text, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (asset_seq) DO UPDATE SET machine_alt_text = excluded.machine_alt_text`,
        ).run(seq, text, new Date().toISOString());
      },
    };
  },
};
assetStoreContract('SQLite', assetFixture);

assetLexicalIndexContract('SQLite', {
  async create() {
    const { store: db } = await fixture((d) => d).create();
    seedContractScopes(db);
    const indexes = createLexicalIndexes(db);
    return {
      lexical: (scope, f) => indexes.assets(scope, f),
      assets: createSqliteAssetStore(db),
      async setEnrichedText(seq, ocrText, autoTags) {
        db.prepare('UPDATE assets SET ocr_text = ?, auto_tags = ? WHERE seq = ?').run(ocrText, JSON.stringify(autoTags), seq);
      },
    };
  },
});
