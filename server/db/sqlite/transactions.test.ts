import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb, type Database } from './connection.ts';

// In WAL mode a deferred transaction that reads first and writes later cannot upgrade when another
// connection committed in between: SQLite answers SQLITE_BUSY_SNAPSHOT at once, without the busy handler
// (https://www.sqlite.org/isolation.html, https://www.sqlite.org/rescode.html#busy_snapshot). Our write
// transactions take the write lock up front (BEGIN IMMEDIATE, better-sqlite3's `transaction(fn).immediate()`,
// as every SQLite adapter runs its composite writes): the other writer waits instead. Plain better-sqlite3
// here: an async port cannot let a test write from another connection while its transaction is open.
describe('write transactions across connections (two processes on one data dir)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-tx-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The first connection's read-then-write transaction on `settings`, while the second writes between its read and its write. */
  const readThenWrite = (a: Database, b: Database) => {
    const get = a.prepare<[string], string>('SELECT value FROM settings WHERE key = ?').pluck();
    const put = a.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING');
    let otherWrite: unknown = null;
    const tx = a.transaction((): string => {
      const before = get.get('tx-probe');
      // another process writes while this transaction is open
      try {
        b.prepare("INSERT INTO settings (key, value) VALUES ('tx-other', 'b')").run();
      } catch (e) {
        otherWrite = e;
      }
      if (before !== undefined) return before;
      put.run('tx-probe', 'a');
      return get.get('tx-probe')!;
    });
    return { tx, otherWrite: () => otherWrite, get: (key: string) => get.get(key) };
  };

  it('a transaction that reads, then writes, is not broken by a write committed in between', () => {
    const file = path.join(dir, 'atelier.db');
    const a = openDb(file);
    const b = openDb(file);
    b.pragma('busy_timeout = 50');
    const r = readThenWrite(a, b);
    expect(r.tx.immediate()).toBe('a');
    // the other writer waited for the lock (and gave up after its 50 ms), it did not slip in between
    expect(r.otherWrite()).toMatchObject({ code: 'SQLITE_BUSY' });
    b.prepare("INSERT INTO settings (key, value) VALUES ('tx-other', 'b')").run();
    expect(r.get('tx-other')).toBe('b');
    a.close();
    b.close();
  });

  it('the same transaction begun deferred fails at its first write (why the adapters begin IMMEDIATE)', () => {
    const file = path.join(dir, 'deferred.db');
    const a = openDb(file);
    const b = openDb(file);
    b.pragma('busy_timeout = 50');
    const r = readThenWrite(a, b);
    expect(() => r.tx.deferred()).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY_SNAPSHOT' }));
    // the other writer committed; the first one wrote nothing
    expect(r.otherWrite()).toBeNull();
    expect(r.get('tx-other')).toBe('b');
    expect(r.get('tx-probe')).toBeUndefined();
    a.close();
    b.close();
  });
});
