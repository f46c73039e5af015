import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import type { TestHooks } from '../../test-hooks.ts';
import { migrate } from './migrate.ts';

export type { Database };

/**
 * Drop the sqlite-vec tables `product_vec_f<dims>` that earlier versions kept beside `product_embeddings`:
 * a second copy of every product vector, written and never read (product search runs on the in-memory
 * partitions of product-vector-index.ts). A SQL migration cannot do it: the names carry the embedder's
 * vector length. Idempotent: when none is left it is one read of sqlite_master; the write lock is taken
 * only when one is found, and the list is re-read inside it, so of several processes opening the data dir
 * at once each table is dropped by one. DROP TABLE on a vec0 table drops its shadow tables too (the
 * module's xDestroy), which is why sqlite-vec must be loaded first.
 */
function dropRetiredProductVec0Tables(db: Database): void {
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'product_vec_f[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
    .pluck();
  // the GLOB also matches longer names of virtual tables (product_vec_f3x): keep the exact form only
  const find = (): string[] => (names.all() as string[]).filter((name) => /^product_vec_f\d+$/.test(name));
  if (find().length === 0) return;
  db.transaction(() => {
    for (const name of find()) db.exec(`DROP TABLE IF EXISTS "${name}"`);
  }).immediate();
}

/**
 * Open (creating if needed) the SQLite database, load sqlite-vec, run migrations and drop the retired
 * product vec0 tables.
 * @param file path of the database file, or ':memory:'
 * @param hooks TEST ONLY pause points (see test-hooks.ts)
 * @throws SqliteError SQLITE_BUSY when another process holds the write lock too long (migrations: see
 *   migrate.ts; dropping the retired tables: the 5 s busy timeout)
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
  dropRetiredProductVec0Tables(db);
  return db;
}
