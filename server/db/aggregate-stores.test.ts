import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { openDb, type Database } from './connection.ts';
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
