import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { openDb, type Database } from '../sqlite/connection.ts';

/**
 * TEST ONLY: fresh migrated SQLite files for the contract cases of one test file, in a temp directory
 * that is removed (every connection closed) after the file. Call at module level (it registers `afterAll`).
 */
export function sqliteFiles(prefix: string): {
  /** the path of a new database file (not created until connected) */
  next(): string;
  /** a new connection to `file` (migrations run; foreign keys on unless `foreignKeys` is false) */
  connect(file: string, foreignKeys?: boolean): Database;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `atelier-${prefix}-`));
  const open: Database[] = [];
  afterAll(() => {
    for (const db of open) db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  let n = 0;
  return {
    next: () => path.join(dir, `${prefix}-${++n}.db`),
    connect(file, foreignKeys = true) {
      const db = openDb(file);
      open.push(db);
      if (!foreignKeys) db.pragma('foreign_keys = OFF');
      return db;
    },
  };
}

/**
 * TEST ONLY: insert the tenants and workspaces the contracts use: tenant-a (ws-a, ws-b), tenant-b (ws-c),
 * and any `extra` [workspace, tenant] pairs (their tenants too).
 */
export function seedContractScopes(db: Database, extra: [workspace: string, tenant: string][] = []): void {
  const now = new Date().toISOString();
  const pairs: [string, string][] = [['ws-a', 'tenant-a'], ['ws-b', 'tenant-a'], ['ws-c', 'tenant-b'], ...extra];
  const tenant = db.prepare('INSERT OR IGNORE INTO tenants (id, name, created_at) VALUES (?, ?, ?)');
  const workspace = db.prepare('INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES (?, ?, ?, ?)');
  for (const [, t] of pairs) tenant.run(t, t, now);
  for (const [w, t] of pairs) workspace.run(w, t, w, now);
}
