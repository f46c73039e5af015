import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import type { TestHooks } from '../../test-hooks.ts';
import { readMigrationFiles, type Migration } from '../migration-files.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Read `db/sqlite/migrations/*.sql` in version order (migration-files.ts).
 * @throws Error on a duplicate number
 */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readMigrationFiles(dir);
}

/** How long a process waits for another one's migration (first open of a data dir by several processes), ms. */
const MIGRATION_LOCK_WAIT_MS = 120_000;

function isBusy(e: unknown): boolean {
  const code = (e as { code?: string } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * Apply every migration not yet applied, in version order, each in its own `BEGIN IMMEDIATE`
 * transaction. Several processes may open a new data dir at once (an HTTP server, stdio servers, CLI
 * commands): the write lock is taken before the applied versions are read, and they are re-read inside
 * it, so exactly one process applies each migration and the others see it applied. A process waits
 * (retrying SQLITE_BUSY past `busy_timeout`) up to MIGRATION_LOCK_WAIT_MS for another's migration.
 * Applied versions are recorded in `schema_migrations`; `PRAGMA user_version` holds the highest applied
 * version (so external tools see the schema level).
 * https://www.sqlite.org/lang_transaction.html (IMMEDIATE takes the write lock at BEGIN)
 * @param hooks TEST ONLY pause point `migrate` (inside the lock, before the first migration is applied)
 * @returns the versions applied now
 * @throws SqliteError SQLITE_BUSY when the lock is not free within MIGRATION_LOCK_WAIT_MS
 */
export function migrate(db: Database, migrations: Migration[] = loadMigrations(), hooks?: TestHooks): number[] {
  const applied: number[] = [];
  const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS;
  const begin = (): void => {
    for (;;) {
      try {
        db.exec('BEGIN IMMEDIATE');
        return;
      } catch (e) {
        if (!isBusy(e) || Date.now() > deadline) throw e;
      }
    }
  };
  let first = true;
  for (;;) {
    begin();
    let m: Migration | undefined;
    try {
      db.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT',
      );
      const done = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version));
      m = migrations.find((x) => !done.has(x.version));
      if (m && first) hooks?.pauseSync('migrate');
      first = false;
      if (m) {
        db.exec(m.sql);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
          m.version,
          m.name,
          new Date().toISOString(),
        );
        const max = Math.max(m.version, db.pragma('user_version', { simple: true }) as number);
        db.pragma(`user_version = ${max}`);
      }
      db.exec('COMMIT');
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw e;
    }
    if (!m) return applied;
    applied.push(m.version);
  }
}
