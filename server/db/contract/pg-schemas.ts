import { afterAll, afterEach, beforeAll } from 'vitest';
import { startPgliteServer, type PgliteServer } from './pglite-server.ts';
import type { PgPool } from '../postgres/pool.ts';
import { createTestSchema, type TestSchema } from './pg-test-database.ts';
import type { StoreFixture } from './fixture.ts';

/**
 * TEST ONLY: the PostgreSQL schemas of one test file's contract cases, each dropped (with its pools) after
 * its case, so a run holds a few connections at a time rather than a pool per case: the machine's
 * PostgreSQL is shared (max_connections 100). Call at module level (it registers `afterEach`).
 */
export function schemasPerCase(): {
  /** register `schema` to be dropped after the current case; returns it */
  track<T extends TestSchema>(schema: T): T;
  /** a fresh migrated schema of the test database (createTestSchema), tracked */
  create(): Promise<TestSchema>;
  /** a StoreFixture whose stores `make` builds on a fresh tracked schema; "another process" is a second pool */
  fixture<S>(make: (pool: PgPool) => S): StoreFixture<S>;
} {
  const schemas: TestSchema[] = [];
  afterEach(async () => {
    await Promise.all(schemas.splice(0).map((s) => s.drop()));
  });
  const track = <T extends TestSchema>(schema: T): T => {
    schemas.push(schema);
    return schema;
  };
  const create = async (): Promise<TestSchema> => track(await createTestSchema());
  return {
    track,
    create,
    fixture: (make) => ({
      async create() {
        const schema = await create();
        return { store: make(schema.pool()), open: async () => make(schema.pool()) };
      },
    }),
  };
}

/** TEST ONLY: insert the tenants and workspaces the contracts use: tenant-a (ws-a, ws-b), tenant-b (ws-c). */
export async function seedPgContractScopes(pool: PgPool): Promise<void> {
  await pool.query(`INSERT INTO tenants (id, name, created_at) VALUES ('tenant-a', 'a', now()), ('tenant-b', 'b', now())`);
  await pool.query(
    `INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES
       ('ws-a', 'tenant-a', 'a', now()), ('ws-b', 'tenant-a', 'b', now()), ('ws-c', 'tenant-b', 'c', now())`,
  );
}

/**
 * TEST ONLY: PGlite with pgvector (pglite-server.ts) for the enclosing describe block, or the file when
 * called at module level: started in `beforeAll` (seconds: give no shorter hook timeout), stopped in
 * `afterAll`. Its methods are usable from the cases on.
 * @throws Error from a method called before `beforeAll` ran
 */
export function pgliteServerPerSuite(): Omit<PgliteServer, 'stop'> {
  let server: PgliteServer | null = null;
  beforeAll(async () => {
    server = await startPgliteServer();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  const started = (): PgliteServer => {
    if (!server) throw new Error('the PGlite server starts in beforeAll: use it from a case or a later hook');
    return server;
  };
  return {
    get url() {
      return started().url;
    },
    schema: () => started().schema(),
    query: (sql) => started().query(sql),
  };
}
