import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteAssetStore } from './asset-store.ts';
import { createSqliteAssetTextSearch } from './asset-text-search.ts';
import { openDb, type Database } from './connection.ts';
import { assetTextSearchContract } from './contract/asset-text-search-contract.ts';
import { assetStoreContract, type AssetStoreFixture } from './contract/asset-store-contract.ts';
import type { StoreFixture } from './contract/fixture.ts';
import { tenancyStoreContract } from './contract/tenancy-store-contract.ts';
import { createSqliteTenancyStore } from './tenancy-store.ts';

// The SQLite adapters of the aggregate ports (tenancy, assets) against their contracts
// (server/db/contract/); the PostgreSQL implementations run the same suites in
// postgres/aggregate-stores.test.ts. Each store gets a fresh, migrated database file with foreign keys
// on; "another process" is a second connection to the same file.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-aggregates-'));
const open: Database[] = [];
afterAll(() => {
  for (const db of open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let n = 0;
function fixture<S>(make: (db: Database) => S): StoreFixture<S> {
  return {
    async create() {
      const file = path.join(dir, `aggregate-${++n}.db`);
      const connect = (): Database => {
        const db = openDb(file);
        open.push(db);
        return db;
      };
      return { store: make(connect()), open: async () => make(connect()) };
    },
  };
}

tenancyStoreContract('SQLite', fixture(createSqliteTenancyStore));

/** The tenants and workspaces the asset contract uses (see AssetStoreFixture). */
function seedScopes(db: Database): void {
  const now = new Date().toISOString();
  for (const t of ['tenant-a', 'tenant-b']) db.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)').run(t, t, now);
  for (const [w, t] of [
    ['ws-a', 'tenant-a'],
    ['ws-b', 'tenant-a'],
    ['ws-c', 'tenant-b'],
  ])
    db.prepare('INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES (?, ?, ?, ?)').run(w, t, w, now);
}

const assetFixture: AssetStoreFixture = {
  async create() {
    const { store: db, open: openAgain } = await fixture((d) => d).create();
    seedScopes(db);
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

assetTextSearchContract('SQLite', {
  async create() {
    const { store: db } = await fixture((d) => d).create();
    seedScopes(db);
    return {
      search: createSqliteAssetTextSearch(db),
      assets: createSqliteAssetStore(db),
      async setEnrichedText(seq, ocrText, autoTags) {
        db.prepare('UPDATE assets SET ocr_text = ?, auto_tags = ? WHERE seq = ?').run(ocrText, JSON.stringify(autoTags), seq);
      },
    };
  },
});
