import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from './connection.ts';
import { createTenancyQueries } from './tenancy.ts';

// In WAL mode a deferred transaction that reads first and writes later cannot upgrade when another
// connection committed in between: SQLite answers SQLITE_BUSY_SNAPSHOT at once, without the busy handler
// (https://www.sqlite.org/isolation.html, https://www.sqlite.org/rescode.html#busy_snapshot). Our write
// transactions take the write lock up front (BEGIN IMMEDIATE): the other writer waits instead.
describe('write transactions across connections (two processes on one data dir)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-tx-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a transaction that reads, then writes, is not broken by a write committed in between', () => {
    const file = path.join(dir, 'atelier.db');
    const a = openDb(file);
    const b = openDb(file);
    b.pragma('busy_timeout = 50');
    const queries = createTenancyQueries(a);
    let otherWrite: unknown = null;
    const stored = queries.transaction(() => {
      const before = queries.getSetting('tx-probe');
      // another process writes while this transaction is open
      try {
        b.prepare("INSERT INTO settings (key, value) VALUES ('tx-other', 'b')").run();
      } catch (e) {
        otherWrite = e;
      }
      return before ?? queries.ensureSetting('tx-probe', 'a');
    });
    expect(stored).toBe('a');
    // the other writer waited for the lock (and gave up after its 50 ms), it did not slip in between
    expect(otherWrite).toMatchObject({ code: 'SQLITE_BUSY' });
    b.prepare("INSERT INTO settings (key, value) VALUES ('tx-other', 'b')").run();
    expect(queries.getSetting('tx-other')).toBe('b');
    a.close();
    b.close();
  });
});
