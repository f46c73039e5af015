import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ensurePgSchema, loadPgMigrations, migratePostgres } from './migrate.ts';
import { createPgPool } from './pool.ts';
import { createTestSchema, TEST_POSTGRES_URL, type TestSchema } from '../contract/pg-test-database.ts';

const schemas: TestSchema[] = [];
afterAll(async () => {
  await Promise.all(schemas.map((s) => s.drop()));
});
const fresh = async (): Promise<TestSchema> => {
  const s = await createTestSchema({ migrate: false });
  schemas.push(s);
  return s;
};

describe('PostgreSQL migrations', () => {
  it('several processes migrating a new database at once: each migration is applied exactly once', async () => {
    const s = await fresh();
    const runs = await Promise.all([migratePostgres(s.pool(1)), migratePostgres(s.pool(1)), migratePostgres(s.pool(1))]);
    const all = loadPgMigrations().map((m) => m.version);
    expect(runs.filter((r) => r.length > 0)).toEqual([all]);
    expect(runs.filter((r) => r.length === 0)).toHaveLength(2);
    const applied = await s.pool(1).query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(applied.rows.map((r) => r.version)).toEqual(all);
    expect(await migratePostgres(s.pool(1))).toEqual([]);
  });

  it('a failing migration leaves nothing applied, not even the migrations before it', async () => {
    const s = await fresh();
    const good = { version: 1, name: '0001_create_a.sql', sql: 'CREATE TABLE a (x integer)' };
    const bad = { version: 2, name: '0002_broken.sql', sql: 'CREATE TABLE b (x nosuchtype)' };
    await expect(migratePostgres(s.pool(1), [good, bad])).rejects.toThrow(/nosuchtype/);
    const tables = await s
      .pool(1)
      .query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name IN ('a', 'b')`, [s.name]);
    expect(tables.rows).toEqual([]);
    expect(await migratePostgres(s.pool(1), [good])).toEqual([1]);
  });

  it('a process creating its schema while another session creates it too waits for it and finds it created', async () => {
    const name = `t_${randomBytes(6).toString('hex')}`;
    const other = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    const pool = createPgPool(TEST_POSTGRES_URL, { max: 1 });
    // a third session watches (inside its transaction the other one would see a frozen pg_stat_activity)
    const watch = createPgPool(TEST_POSTGRES_URL, { max: 1 });
    await other.connect();
    try {
      // the other session has created the schema, not yet committed
      await other.query('BEGIN');
      await other.query(`CREATE SCHEMA ${name}`);
      const ensured = ensurePgSchema(pool, name).then(
        () => 'created',
        (e: Error) => e.message,
      );
      // wait until this process's CREATE waits for the other session's row
      for (;;) {
        const waiting = await watch.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query = $1`, [
          `CREATE SCHEMA IF NOT EXISTS ${name}`,
        ]);
        if (waiting.rowCount) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await other.query('COMMIT');
      expect(await ensured).toBe('created');
      const found = await pool.query('SELECT nspname FROM pg_namespace WHERE nspname = $1', [name]);
      expect(found.rows).toEqual([{ nspname: name }]);
    } finally {
      await other.query(`DROP SCHEMA IF EXISTS ${name}`).catch(() => undefined);
      await other.end();
      await Promise.all([pool.end(), watch.end()]);
    }
  });
});
