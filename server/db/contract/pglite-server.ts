import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { migratePostgres } from '../postgres/migrate.ts';
import { createPgPool, type PgPool } from '../postgres/pool.ts';
import type { TestSchema } from './pg-test-database.ts';

/**
 * TEST ONLY: PostgreSQL with pgvector for the tests that need vectors, which the machine's PostgreSQL 15
 * lacks: PGlite (Postgres in WebAssembly, in this process, in memory) with its pgvector and unaccent
 * extensions, served over the PostgreSQL wire protocol by pglite-socket on a free port of 127.0.0.1, so
 * the same node-postgres code runs against it (https://pglite.dev/docs/pglite-socket).
 *
 * PGlite is one backend: every socket connection shares its session (queries are queued one at a time,
 * a transaction of one connection sees the statements of another), and it ignores the `options` startup
 * parameter. So the schemas here set their search_path on connect, their pools hold one connection,
 * and the cases of a file must run one after another (vitest's default within a file).
 */
export interface PgliteServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** a fresh schema with the migrations applied, as pg-test-database.ts `createTestSchema` */
  schema(): Promise<TestSchema>;
  /** run SQL on PGlite's one session directly (what it sets applies to every connection) */
  query(sql: string): Promise<void>;
  /** stop the socket server and close PGlite */
  stop(): Promise<void>;
}

/**
 * Start PGlite with pgvector and unaccent and serve it on a free port. Starting takes seconds (the
 * WebAssembly module and the extension bundles load): give the hook that calls it a long timeout.
 */
export async function startPgliteServer(): Promise<PgliteServer> {
  const db = await PGlite.create({ extensions: { vector, unaccent } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  const pools = new Set<PgPool>();
  return {
    url,
    async schema() {
      const name = `t_${randomBytes(6).toString('hex')}`;
      await db.exec(`CREATE SCHEMA ${name}`);
      const own: PgPool[] = [];
      const pool = (): PgPool => {
        // public holds the extensions, as on a real server; the first schema gets the tables
        const p = createPgPool(url, {
          max: 1,
          onConnect: async (c) => void (await c.query(`SET search_path TO ${name}, public`)),
        });
        own.push(p);
        pools.add(p);
        return p;
      };
      await migratePostgres(pool());
      return {
        name,
        pool,
        async drop() {
          await Promise.all(own.map((p) => (pools.delete(p), p.end())));
          await db.exec(`DROP SCHEMA ${name} CASCADE`);
        },
      };
    },
    async query(sql) {
      await db.exec(sql);
    },
    async stop() {
      await Promise.all([...pools].map((p) => p.end()));
      await server.stop();
      await db.close();
    },
  };
}
