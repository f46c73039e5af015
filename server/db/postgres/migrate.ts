import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestHooks } from '../../test-hooks.ts';
import { readMigrationFiles, type Migration } from '../migration-files.ts';
import type { PgPool } from './pool.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Key of the advisory lock that serialises migrations (any schema of the database): the bytes "atelier\0" as int8. */
const MIGRATION_LOCK_KEY = 0x6174656c69657200n;

/** The PostgreSQL migrations (`postgres/migrations/NNNN_verb_noun.sql`) in version order. @throws Error on a duplicate number */
export function loadPgMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readMigrationFiles(dir);
}

/** SQLSTATE unique_violation, and the index PostgreSQL keeps schema names unique with. */
const UNIQUE_VIOLATION = '23505';
const SCHEMA_NAME_INDEX = 'pg_namespace_nspname_index';

/**
 * `CREATE SCHEMA IF NOT EXISTS`, also when another session creates the same schema at the same instant
 * (several processes starting on a new schema): PostgreSQL looks for the name before inserting it, so the
 * later of two concurrent creations waits for the first and then fails with unique_violation on
 * `pg_namespace_nspname_index` instead of doing nothing; that failure means the schema exists.
 * @param schema a plain identifier (config validates it), not quoted
 * @throws the driver's error for anything else (PostgreSQL unreachable, no CREATE privilege)
 */
export async function ensurePgSchema(pool: PgPool, schema: string): Promise<void> {
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (e) {
    const err = e as { code?: string; constraint?: string };
    if (err.code !== UNIQUE_VIOLATION || err.constraint !== SCHEMA_NAME_INDEX) throw e;
  }
}

/**
 * Apply every PostgreSQL migration not yet applied, in version order, all in one transaction under
 * `pg_advisory_xact_lock` (https://www.postgresql.org/docs/15/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS):
 * several processes starting on a new database wait for each other, exactly one applies each
 * migration, and a failing migration leaves nothing applied. Applied versions are recorded in
 * `schema_migrations` of the first schema of the connection's search_path.
 * @param hooks TEST ONLY pause point `migrate` (inside the lock, after reading the applied versions, before
 *   the first pending migration is applied), as in the SQLite migrator (server/db/sqlite/migrate.ts)
 * @returns the versions applied now
 * @throws the driver's error of a failing statement (nothing applied)
 */
export async function migratePostgres(pool: PgPool, migrations: Migration[] = loadPgMigrations(), hooks?: TestHooks): Promise<number[]> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await c.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)',
    );
    const done = new Set((await c.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
    const applied: number[] = [];
    if (migrations.some((m) => !done.has(m.version))) await hooks?.pause('migrate');
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await c.query(m.sql);
      await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())', [m.version, m.name]);
      applied.push(m.version);
    }
    await c.query('COMMIT');
    return applied;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}
