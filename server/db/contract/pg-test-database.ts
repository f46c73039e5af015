import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migratePostgres } from '../postgres/migrate.ts';
import { createPgPool, type PgPool } from '../postgres/pool.ts';

/** TEST ONLY: the PostgreSQL the tests use (a real PostgreSQL 15; ATELIER_TEST_POSTGRES_URL overrides). */
export const TEST_POSTGRES_URL = process.env.ATELIER_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh, migrated schema of the test database; its pools use it as search_path. */
export interface TestSchema {
  name: string;
  /** a new pool on the schema (a second process has its own), ended by `drop` */
  pool(max?: number): PgPool;
  /** end every pool and drop the schema with its tables */
  drop(): Promise<void>;
}

/**
 * TEST ONLY: create a schema with a random name (`t_<hex>`) in the test database and (unless
 * `migrate` is false) apply the PostgreSQL migrations in it, so test files running in parallel never
 * see each other's rows.
 * @throws Error with the way to start PostgreSQL when it is not reachable (the tests fail, never skip)
 */
export async function createTestSchema(opts: { url?: string; migrate?: boolean } = {}): Promise<TestSchema> {
  const url = opts.url ?? TEST_POSTGRES_URL;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at ${url} (${(e as Error).message}). These tests need a real PostgreSQL 15: ` +
        'start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or point ATELIER_TEST_POSTGRES_URL at one.',
      { cause: e },
    );
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  try {
    await admin.query(`CREATE SCHEMA ${name}`);
  } finally {
    await admin.end();
  }
  const pools: PgPool[] = [];
  const pool = (max = 10): PgPool => {
    const p = createPgPool(url, { searchPath: name, max });
    pools.push(p);
    return p;
  };
  if (opts.migrate !== false) await migratePostgres(pool(1));
  return {
    name,
    pool,
    async drop() {
      await Promise.all(pools.map((p) => p.end()));
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA ${name} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}
