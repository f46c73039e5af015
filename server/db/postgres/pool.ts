import pg from 'pg';

/**
 * PostgreSQL connections for every store of the PostgreSQL backend (node-postgres, https://node-postgres.com),
 * which `ATELIER_DATABASE_URL` selects (server/stores-pg.ts `openPgStores`).
 */

/** int8 (bigint: counts, epoch ms, identity ids) as a JS number; refuses values past 2^53 instead of rounding. */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${text} does not fit a JS number exactly`);
  return n;
}

const types = new pg.TypeOverrides();
types.setTypeParser(pg.types.builtins.INT8, parseInt8);

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;

/**
 * A connection pool whose bigint columns read as numbers.
 * @param url postgres://user[:password]@host[:port]/database
 * @param opts.searchPath schema list every connection uses (`SET search_path` at connect, via the `options` startup parameter)
 * @param opts.max most connections (default 10)
 * @param opts.onConnect awaited on each new connection before its first query (pg-pool `onConnect`)
 */
export function createPgPool(
  url: string,
  opts: { searchPath?: string; max?: number; onConnect?: (c: pg.ClientBase) => Promise<void> } = {},
): PgPool {
  return new pg.Pool({
    connectionString: url,
    types,
    max: opts.max ?? 10,
    ...(opts.searchPath ? { options: `-c search_path=${opts.searchPath}` } : {}),
    // pg-pool awaits a promise returned here (pg-pool 3.14 index.js `_promiseTry`); @types/pg types it void
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    ...(opts.onConnect ? { onConnect: opts.onConnect } : {}),
  });
}

/**
 * Run `fn` in one transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when it throws
 * (the error is rethrown). READ COMMITTED, so each statement sees rows committed before it started —
 * what row locks taken earlier in the transaction rely on.
 */
export async function inTransaction<T>(pool: PgPool, fn: (c: PgClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}

/** ISO 8601 UTC with ms of a timestamptz read back (node-postgres returns a Date), or null. */
export const isoOf = (d: Date | null): string | null => (d === null ? null : d.toISOString());
