import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPgliteDatabase, type PgliteDatabase } from './pglite-database.ts';

/** A frontend message: type byte, int32 length (itself included), body. */
function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}
const cstr = (s: string): Buffer => Buffer.from(`${s}\0`);
const int16 = (n: number): Buffer => Buffer.from([n >> 8, n & 0xff]);
const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

/** A raw wire-protocol connection, to send an extended query in two halves as TCP may deliver it. */
async function rawConnection(port: number): Promise<{ send(b: Buffer): void; untilReady(): Promise<string[]>; end(): void }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((r) => socket.once('connect', r));
  let buf = Buffer.alloc(0);
  let rows: string[] = [];
  let waiter: ((rows: string[]) => void) | null = null;
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 5 && buf.length >= 1 + buf.readInt32BE(1)) {
      const type = String.fromCharCode(buf[0]!);
      const body = buf.subarray(5, 1 + buf.readInt32BE(1));
      buf = buf.subarray(1 + buf.readInt32BE(1));
      // DataRow: int16 columns, then int32 length + bytes each (one column here)
      if (type === 'D') rows.push(body.subarray(6, 6 + body.readInt32BE(2)).toString());
      if (type === 'Z' && waiter) {
        const w = waiter;
        waiter = null;
        w(rows);
        rows = [];
      }
    }
  });
  const startup = Buffer.concat([int32(196608), cstr('user'), cstr('postgres'), cstr('database'), cstr('postgres'), cstr('')]);
  const conn = {
    send: (b: Buffer) => void socket.write(b),
    untilReady: () => new Promise<string[]>((r) => (waiter = r)),
    end: () => void socket.destroy(),
  };
  const ready = conn.untilReady();
  socket.write(Buffer.concat([int32(4 + startup.length), startup]));
  await ready;
  return conn;
}

describe('a PGlite of its own per test data dir (e2e/pglite/pglite-database.ts)', () => {
  let db: PgliteDatabase;
  let port: number;
  beforeAll(async () => {
    db = await startPgliteDatabase();
    port = Number(new URL(db.url).port);
  });
  afterAll(async () => db.stop());

  it('keeps one connection’s extended query to itself while another connection queries meanwhile', async () => {
    const a = await rawConnection(port);
    const b = new pg.Client({ connectionString: db.url });
    await b.connect();
    try {
      // Parse and Bind of the unnamed statement and portal: the first half of a query split by TCP
      a.send(
        Buffer.concat([
          message('P', cstr(''), cstr("SELECT 'from a'"), int16(0)),
          message('B', cstr(''), cstr(''), int16(0), int16(0), int16(0)),
        ]),
      );
      // the other connection's parameterised query, which parses into the same unnamed statement and portal
      const other = b.query<{ v: string }>('SELECT $1::text AS v', ['from b']);
      await new Promise((r) => setTimeout(r, 300));
      const answer = a.untilReady();
      a.send(Buffer.concat([message('E', cstr(''), int32(0)), message('S')]));
      expect(await answer).toEqual(['from a']);
      expect((await other).rows).toEqual([{ v: 'from b' }]);
    } finally {
      a.end();
      await b.end();
    }
  });

  it('rolls back the transaction of a connection that goes away, and lets the others go on', async () => {
    const setup = new pg.Client({ connectionString: db.url });
    await setup.connect();
    await setup.query('CREATE TABLE gone (n int)');
    const a = new pg.Client({ connectionString: db.url });
    await a.connect();
    a.on('error', () => undefined);
    await a.query('BEGIN');
    await a.query('INSERT INTO gone VALUES (1)');
    const count = setup.query<{ n: number }>('SELECT count(*)::int AS n FROM gone');
    // the process holding the transaction dies: its socket closes without COMMIT
    (a as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
    expect((await count).rows).toEqual([{ n: 0 }]);
    await setup.query('INSERT INTO gone VALUES (2)');
    expect((await setup.query('SELECT n FROM gone')).rows).toEqual([{ n: 2 }]);
    await setup.end();
  });
});
