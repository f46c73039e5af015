import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';

/**
 * TEST ONLY (`npm run test:scale` part 3, e2e/pglite/vitest.config.ts): a PostgreSQL with pgvector and
 * unaccent for ONE test data dir — a PGlite (Postgres in WebAssembly, in memory, in the test process)
 * served over the wire protocol on a free port of 127.0.0.1, so the server and its CLI children run
 * their node-postgres code against it unchanged.
 *
 * PGlite is one backend session. Every socket connection shares it: its `search_path`, its unnamed
 * prepared statement and portal, its transaction. pglite-socket's own queue keeps a connection's
 * explicit transaction (BEGIN … COMMIT) to itself, but lets another connection's messages in between
 * the Parse, Bind, Execute and Sync of one extended-protocol query (every parameterised node-postgres
 * query) whenever those arrive in separate reads — a long message such as a vector insert is split by
 * TCP. This server holds the session for one connection instead from its first message until it is at a
 * ReadyForQuery boundary (after Sync, a simple Query or the startup) outside a transaction block; the
 * others' messages wait their turn. So connections of one instance see each other as a real server's
 * connections would, except that their transactions run one after another (stricter than READ
 * COMMITTED; a process paused inside a transaction holds up the others). A connection that goes away
 * while it holds the session has its transaction rolled back, as a real server does. No COPY (no
 * server code uses it: its data messages follow the Query that would release the session).
 *
 * What stays shared is session state set outside transactions: all connections of one instance must use
 * the same `search_path` (the harness gives each data dir, hence each schema, an instance of its own).
 *
 * Startup: the first instance of a process runs initdb and creates the extensions (about 2–6 s), then
 * dumps its data dir; later instances load that dump (about 0.5 s each). Each live instance holds about
 * 200 MB.
 */
export interface PgliteDatabase {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** close every connection, the listener and PGlite (idempotent) */
  stop(): Promise<void>;
}

let template: Promise<Blob> | null = null;

/** The data dir of a fresh PGlite with the vector and unaccent extensions in `public`, once per process. */
function templateDataDir(): Promise<Blob> {
  template ??= (async () => {
    const db = await PGlite.create({ extensions: { vector, unaccent } });
    try {
      await db.exec('CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS unaccent');
      return await db.dumpDataDir('none');
    } finally {
      await db.close();
    }
  })();
  return template;
}

/**
 * Start a PGlite of its own (from the per-process template) and serve it on a free port of 127.0.0.1.
 * @throws PGlite's error when it cannot start
 */
export async function startPgliteDatabase(): Promise<PgliteDatabase> {
  const db = await PGlite.create({ extensions: { vector, unaccent }, loadDataDir: await templateDataDir() });
  const session = new SessionQueue(db);
  const handlers = new Set<PGLiteSocketHandler>();
  const server = net.createServer((socket) => {
    const h = new PGLiteSocketHandler({
      // structurally the queue pglite-socket's handler calls (its class is not exported)
      queryQueue: session as unknown as PGLiteSocketHandlerOptions['queryQueue'],
      closeOnDetach: true,
    });
    handlers.add(h);
    const forget = (): void => void handlers.delete(h);
    h.addEventListener('close', forget);
    h.addEventListener('error', forget);
    h.attach(socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  // a test that forgets to stop it must not keep its worker alive
  server.unref();
  const port = (server.address() as net.AddressInfo).port;
  let stopped: Promise<void> | null = null;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      stopped ??= (async () => {
        await Promise.all([...handlers].map((h) => h.detach(true)));
        await new Promise<void>((r) => server.close(() => r()));
        await db.close();
      })();
      return stopped;
    },
  };
}

const SYNC = Uint8Array.of(0x53, 0, 0, 0, 4);
/** a simple Query `ROLLBACK`: ends an explicit transaction block, aborts an implicit one (a warning when there is none) */
const ROLLBACK = (() => {
  const sql = Buffer.from('ROLLBACK\0');
  const m = Buffer.alloc(5 + sql.length);
  m.write('Q', 0);
  m.writeInt32BE(4 + sql.length, 1);
  sql.copy(m, 5);
  return new Uint8Array(m);
})();

/** Whether the backend answers `msg` with ReadyForQuery: Sync, a simple Query, the startup message (its first byte is its length's, 0), Terminate. */
const endsExchange = (msg: Uint8Array): boolean => msg[0] === 0x53 || msg[0] === 0x51 || msg[0] === 0 || msg[0] === 0x58;

interface Item {
  handlerId: number;
  /** a protocol message to run, or null: the handler went away, release the session if it holds it */
  message: Uint8Array | null;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (e: Error) => void;
}

/**
 * The message queue of one PGlite: messages run one at a time, in arrival order, except that while a
 * connection holds the session (see startPgliteDatabase) only its own messages run. Implements what
 * pglite-socket's PGLiteSocketHandler calls on its queue: enqueue, clearQueueForHandler,
 * clearTransactionIfNeeded, getQueueLength.
 */
class SessionQueue {
  private queue: Item[] = [];
  private owner: number | null = null;
  private running = false;

  constructor(private readonly db: PGlite) {}

  /** Run one protocol message of a connection; `onData` gets the backend's answer. @returns the answer's length in bytes */
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.run();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  /** Drop the waiting messages of a connection that went away (their promises reject). */
  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((it) => {
      if (it.handlerId !== handlerId || !it.message) return true;
      it.reject(new Error('connection closed'));
      return false;
    });
  }

  /** A connection went away: if it holds the session, roll its transaction back and release it. */
  clearTransactionIfNeeded(handlerId: number): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push({ handlerId, message: null, onData: () => undefined, resolve: () => resolve(), reject: () => resolve() });
      void this.run();
    });
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const i = this.queue.findIndex((it) => this.owner === null || it.handlerId === this.owner);
        if (i < 0) return;
        const it = this.queue.splice(i, 1)[0]!;
        if (!it.message) {
          if (this.owner === it.handlerId) {
            // ROLLBACK ends its transaction (explicit, or the implicit one of an unfinished extended
            // query); Sync then clears an "ignore until Sync" left by an error in such a query
            await this.db.runExclusive(async () => {
              await this.db.execProtocolRaw(ROLLBACK, { syncToFs: false });
              await this.db.execProtocolRaw(SYNC, { syncToFs: false });
            });
            this.owner = null;
          }
          it.resolve(0);
          continue;
        }
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(it.message!, {
              onRawData: (d) => {
                bytes += d.length;
                it.onData(d);
              },
            }),
          );
          it.resolve(bytes);
        } catch (e) {
          it.reject(e instanceof Error ? e : new Error(String(e)));
        }
        this.owner = endsExchange(it.message) && !this.db.isInTransaction() ? null : it.handlerId;
      }
    } finally {
      this.running = false;
    }
  }
}
