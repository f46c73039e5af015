import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { openDb, type Database } from './connection.ts';
import { creditStoreContract } from './contract/credit-store-contract.ts';
import type { StoreFixture } from './contract/fixture.ts';
import { jobQueueContract } from './contract/job-queue-contract.ts';
import { pickerStoreContract } from './contract/picker-store-contract.ts';
import { uploadStoreContract } from './contract/upload-store-contract.ts';
import { createCreditQueries } from './credits.ts';
import { createJobQueue } from './enrichment-jobs.ts';
import { createPickerQueries } from './pickers.ts';
import { createUploadQueries } from './uploads.ts';

// The SQLite implementations of the state ports against their contracts (server/db/contract/); the
// PostgreSQL ones run the same suites in postgres/state-stores.test.ts. Each store gets a fresh database
// file; "another process" is a second connection to the same file.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-state-'));
const open: Database[] = [];
afterAll(() => {
  for (const db of open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A migrated database file with the tenants and workspaces the contracts use (foreign keys stay on). */
function connect(file: string, foreignKeys: boolean): Database {
  const db = openDb(file);
  open.push(db);
  if (!foreignKeys) db.pragma('foreign_keys = OFF');
  return db;
}

let n = 0;
function fixture<S>(make: (db: Database) => S, foreignKeys = true): StoreFixture<S> {
  return {
    async create() {
      const file = path.join(dir, `state-${++n}.db`);
      const db = connect(file, foreignKeys);
      const now = new Date().toISOString();
      const tenant = db.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)');
      const workspace = db.prepare('INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES (?, ?, ?, ?)');
      for (const t of ['tenant-a', 'tenant-b', 't']) tenant.run(t, t, now);
      for (const [w, t] of [
        ['ws-a', 'tenant-a'],
        ['ws-b', 'tenant-a'],
        ['w', 't'],
        ['w2', 't'],
      ])
        workspace.run(w, t, w, now);
      return { store: make(db), open: async () => make(connect(file, foreignKeys)) };
    },
  };
}

pickerStoreContract('SQLite', fixture(createPickerQueries));
uploadStoreContract('SQLite', fixture(createUploadQueries));
creditStoreContract('SQLite', fixture(createCreditQueries));
// enrichment_jobs.asset_seq references assets(seq), which belong to the asset store: no asset rows here.
jobQueueContract('SQLite', fixture(createJobQueue, false));
