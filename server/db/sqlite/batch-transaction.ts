import type { Database } from 'better-sqlite3';

/**
 * Run `writes` in one SQLite write transaction (`BEGIN IMMEDIATE` … `COMMIT`; `ROLLBACK` when it throws),
 * for seeds, benches and tests that fill a library through the async ports: each port write opens its own
 * `db.transaction()`, which better-sqlite3 nests as a SAVEPOINT inside this one, so thousands of inserts
 * cost one commit instead of one each (https://github.com/WiseLibs/better-sqlite3/blob/master/docs/api.md#transactionfunction---function).
 * IMMEDIATE takes the write lock up front, as every write transaction of ours does (transactions.test.ts).
 *
 * Only for `writes` that await nothing but SQLite ports of this connection, which settle before they
 * return: an await that waits for I/O would let other work on the connection run inside this transaction.
 * @returns what `writes` resolves to
 * @throws what `writes` throws (nothing of it is committed then)
 */
export async function inSqliteTransaction<T>(db: Database, writes: () => Promise<T>): Promise<T> {
  db.exec('BEGIN IMMEDIATE');
  try {
    const out = await writes();
    db.exec('COMMIT');
    return out;
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw e;
  }
}
