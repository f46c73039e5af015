import { afterAll, describe, expect, it } from 'vitest';
import { loadPgMigrations, migratePostgres } from './migrate.ts';
import { createTestSchema, type TestSchema } from './test-database.ts';

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
});
