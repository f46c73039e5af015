import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import type { TestHooks } from '../../test-hooks.ts';
import { migrate } from './migrate.ts';

export type { Database };

/**
 * Open (creating if needed) the SQLite database, load sqlite-vec and run migrations.
 * @param file path of the database file, or ':memory:'
 * @param hooks TEST ONLY pause points (see test-hooks.ts)
 */
export function openDb(file: string, hooks?: TestHooks): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  // First, before anything that may take a lock (even journal_mode): wait up to 5 s for a lock held by
  // another connection (CLI import while the server runs, several processes opening a new data dir)
  // instead of failing at once with SQLITE_BUSY. https://www.sqlite.org/pragma.html#pragma_busy_timeout
  db.pragma('busy_timeout = 5000');
  // WAL lets readers (search, CDN) run while a writer (import, enrichment) commits.
  // https://www.sqlite.org/wal.html
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across application crashes in WAL mode and avoids an fsync per commit.
  // https://www.sqlite.org/pragma.html#pragma_synchronous
  db.pragma('synchronous = NORMAL');
  // Page cache of up to 64 MiB (SQLite's default is 2 MiB): at 100k assets or 50k products the FTS5
  // doclists, the scope indexes and the rows a search reads no longer fit the default, and every
  // miss is a read from the OS (search latency doubled after one sqlite-vec scan evicted them).
  // Pages are only held once read. https://www.sqlite.org/pragma.html#pragma_cache_size
  db.pragma('cache_size = -65536');
  // Foreign keys are off by default in SQLite; scoping relies on them (cascade on tenant delete).
  db.pragma('foreign_keys = ON');
  sqliteVec.load(db);
  migrate(db, undefined, hooks);
  return db;
}
