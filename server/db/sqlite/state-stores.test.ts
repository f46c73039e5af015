import type { Database } from './connection.ts';
import { creditStoreContract } from '../contract/credit-store-contract.ts';
import type { StoreFixture } from '../contract/fixture.ts';
import { jobQueueContract } from '../contract/job-queue-contract.ts';
import { pickerStoreContract } from '../contract/picker-store-contract.ts';
import { toolTaskStoreContract } from '../contract/tool-task-store-contract.ts';
import { seedContractScopes, sqliteFiles } from '../contract/sqlite-files.ts';
import { uploadStoreContract } from '../contract/upload-store-contract.ts';
import { createSqliteCreditStore } from './credits.ts';
import { createJobQueue } from './enrichment-jobs.ts';
import { createSqlitePickerStore } from './pickers.ts';
import { createSqliteToolTaskStore } from './tool-tasks.ts';
import { createSqliteUploadStore } from './uploads.ts';

// The SQLite implementations of the state ports against their contracts (server/db/contract/); the
// PostgreSQL ones run the same suites in postgres/state-stores.test.ts. Each store gets a fresh database
// file; "another process" is a second connection to the same file.
const files = sqliteFiles('state');

/** A migrated database file with the tenants and workspaces the contracts use (foreign keys on unless told). */
function fixture<S>(make: (db: Database) => S, foreignKeys = true): StoreFixture<S> {
  return {
    async create() {
      const file = files.next();
      const db = files.connect(file, foreignKeys);
      seedContractScopes(db, [
        ['w', 't'],
        ['w2', 't'],
      ]);
      return { store: make(db), open: async () => make(files.connect(file, foreignKeys)) };
    },
  };
}

pickerStoreContract('SQLite', fixture(createSqlitePickerStore));
uploadStoreContract('SQLite', fixture(createSqliteUploadStore));
creditStoreContract('SQLite', fixture(createSqliteCreditStore));
toolTaskStoreContract('SQLite', fixture(createSqliteToolTaskStore));
// enrichment_jobs.asset_seq references assets(seq), which belong to the asset store: no asset rows here.
jobQueueContract('SQLite', fixture(createJobQueue, false));
