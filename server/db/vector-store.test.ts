import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { createSqliteAssetStore } from './asset-store.ts';
import { openDb, type Database } from './connection.ts';
import { vectorStoreContract } from './contract/vector-store-contract.ts';
import { createSqliteVectorStore } from './vector-store.ts';

// The SQLite VectorStore (sqlite-vec spaces searched by the quantised partitions) against the contract
// the PostgreSQL store passes on PGlite (postgres/vector-store.test.ts). Each case gets a fresh migrated
// database file; "another process" is a second connection with partitions of its own.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-vector-store-'));
const open: Database[] = [];
afterAll(() => {
  for (const db of open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

let n = 0;
vectorStoreContract('SQLite', {
  async create() {
    const file = path.join(dir, `vectors-${++n}.db`);
    const connect = (): Database => {
      const db = openDb(file);
      open.push(db);
      return db;
    };
    const db = connect();
    const now = new Date().toISOString();
    for (const t of ['tenant-a', 'tenant-b']) db.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)').run(t, t, now);
    for (const [w, t] of [
      ['ws-a', 'tenant-a'],
      ['ws-b', 'tenant-a'],
      ['ws-c', 'tenant-b'],
    ])
      db.prepare('INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES (?, ?, ?, ?)').run(w, t, w, now);
    return {
      vectors: createSqliteVectorStore(db),
      assets: createSqliteAssetStore(db),
      open: async () => createSqliteVectorStore(connect()),
    };
  },
});
