import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import { buildApp, type App } from '../../server/app.ts';
import { loadConfig, type Config } from '../../server/config.ts';
import { createPgPool } from '../../server/db/postgres/pool.ts';
import { ServiceError } from '../../server/errors.ts';
import { createLogger } from '../../server/log.ts';
import { createServer } from '../../server/mcp/create-server.ts';
import { startHttp, type HttpHandle } from '../../server/mcp/http.ts';
import { authenticate, createTenant, type TenantBundle } from '../../server/tenancy/admin.ts';

export const REPO_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
export const DEMO_DIR = path.join(REPO_ROOT, 'demo');

/** The S3 settings a test run was given (`npm run test:scale` sets them; scripts/test-scale.mjs). */
const S3_VARS = [
  'ATELIER_BLOB_STORE',
  'ATELIER_S3_ENDPOINT',
  'ATELIER_S3_REGION',
  'ATELIER_S3_FORCE_PATH_STYLE',
  'ATELIER_S3_DELIVERY',
  'ATELIER_S3_PART_BYTES',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_REGION',
] as const;

/** Whether this run stores blobs on S3 (ATELIER_BLOB_STORE=s3://… in the test environment). */
export const ON_S3 = !!process.env.ATELIER_BLOB_STORE;

/**
 * Whether every test data dir gets a PostgreSQL of its own: a PGlite with pgvector started by
 * `openTestDatabase` (ATELIER_TEST_PGLITE=1: `npm run test:scale` part 3, e2e/pglite/vitest.config.ts).
 */
export const ON_PGLITE = process.env.ATELIER_TEST_PGLITE === '1';

/** The PGlite of each data dir (by its base name, the id `backendEnv` takes) under ATELIER_TEST_PGLITE=1. */
const pglites = new Map<string, { started: Promise<{ url: string; stop(): Promise<void> }>; url: string | null }>();

/**
 * Make the database of a data dir ready before anything builds a config on it (`tempConfig`,
 * `backendEnv`, a CLI child): under ATELIER_TEST_PGLITE=1 start its own PGlite (e2e/pglite/pglite-database.ts:
 * one PGlite is one session, so servers running at the same time must not share one); otherwise
 * nothing. Idempotent. Stopped by `closeTestDatabase` (or with the test process).
 * @throws PGlite's error when it cannot start
 */
export async function openTestDatabase(dataDir: string): Promise<void> {
  if (!ON_PGLITE) return;
  const id = path.basename(dataDir);
  let entry = pglites.get(id);
  if (!entry) {
    const started = import('../pglite/pglite-database.ts').then((m) => m.startPgliteDatabase());
    entry = { started, url: null };
    pglites.set(id, entry);
  }
  entry.url = (await entry.started).url;
}

/** Stop the PGlite `openTestDatabase` started for a data dir (nothing when there is none). */
export async function closeTestDatabase(dataDir: string): Promise<void> {
  const id = path.basename(dataDir);
  const entry = pglites.get(id);
  if (!entry) return;
  pglites.delete(id);
  await (await entry.started).stop();
}

/**
 * The storage variables of one test server: {} for the embedded defaults (SQLite file and blob directory
 * in its data dir), or the run's backends with a place of its own — blobs under `<run prefix>/<id>` on S3,
 * tables in the PostgreSQL schema `<ATELIER_TEST_SCHEMA_PREFIX>_<hash of id>` — so that servers (and their
 * GC passes) never see each other's data. Child processes of one test pass the same `id` to share it.
 * Under ATELIER_TEST_PGLITE=1 the database is the data dir's own PGlite, one connection per process.
 * @throws Error under ATELIER_TEST_PGLITE=1 when `openTestDatabase` has not started the data dir's PGlite
 */
export function backendEnv(id: string): Record<string, string> {
  const env: Record<string, string> = {};
  if (ON_S3) {
    for (const k of S3_VARS) if (process.env[k]) env[k] = process.env[k]!;
    env.ATELIER_BLOB_STORE = `${process.env.ATELIER_BLOB_STORE!.replace(/\/+$/, '')}/${id}`;
    // the AWS SDK's notice that its 2027 releases need Node 22 (printed on Node 20) is not a child's error
    env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  }
  const schema = `${process.env.ATELIER_TEST_SCHEMA_PREFIX ?? 'e2e'}_${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
  if (ON_PGLITE) {
    const url = pglites.get(id)?.url;
    if (!url)
      throw new Error(`ATELIER_TEST_PGLITE=1: data dir ${id} has no PGlite yet: await openTestDatabase(dir) before its config or a child`);
    env.ATELIER_DATABASE_URL = url;
    env.ATELIER_DATABASE_POOL_MAX = '1';
    env.ATELIER_DATABASE_SCHEMA = schema;
  }
  // read at call time: eval/run.ts --backend pglite sets it after this module loaded
  else if (process.env.ATELIER_DATABASE_URL) {
    env.ATELIER_DATABASE_URL = process.env.ATELIER_DATABASE_URL;
    if (process.env.ATELIER_DATABASE_POOL_MAX) env.ATELIER_DATABASE_POOL_MAX = process.env.ATELIER_DATABASE_POOL_MAX;
    env.ATELIER_DATABASE_SCHEMA = schema;
  }
  return env;
}

/**
 * Rows of a read-only query on a data dir's database, whichever backend it is on (`backendEnv`): its
 * SQLite file (`atelier.db`, opened read-only), or its PostgreSQL schema (one connection, closed after).
 * For facts no port exposes (applied migrations, a job's attempts, every setting), in SQL both dialects
 * accept. Integers (int8 included) read as numbers on both. `o.write`: a statement that changes rows
 * (the SQLite file opened for writing), e.g. to make rows look as an older version left them; no rows back.
 * @throws the driver's error (no such table; PostgreSQL unreachable)
 */
export async function queryDataDir<T>(dataDir: string, sql: string, o: { write?: boolean } = {}): Promise<T[]> {
  const env = backendEnv(path.basename(dataDir));
  if (!env.ATELIER_DATABASE_URL) {
    const db = new Database(path.join(dataDir, 'atelier.db'), { readonly: !o.write });
    try {
      if (o.write) {
        db.exec(sql);
        return [];
      }
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  }
  const schema = env.ATELIER_DATABASE_SCHEMA!;
  const pool = createPgPool(env.ATELIER_DATABASE_URL, {
    max: 1,
    onConnect: async (c) => void (await c.query(`SET search_path TO ${schema}`)),
  });
  try {
    return (await pool.query(sql)).rows as T[];
  } finally {
    await pool.end();
  }
}

/**
 * A temp data dir and a Config pointing at it (real SQLite file, real blob store: the dir's `blobs/`; or
 * a PostgreSQL schema and an S3 prefix of its own under `npm run test:scale`; `embedded` keeps the SQLite
 * file and the blob directory even there). OCR is off unless a test turns it on (Tesseract takes 1–3 s per
 * photo on 2 cores).
 */
export function tempConfig(overrides: Record<string, string> = {}, dataDir?: string, embedded = false): Config {
  const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-test-'));
  return loadConfig({
    ATELIER_DATA_DIR: dir,
    ATELIER_PORT: '0',
    ATELIER_LOG_LEVEL: 'silent',
    ATELIER_ALLOW_PRIVATE_URLS: '1',
    ATELIER_OCR: '0',
    // tests and benches call far faster than an agent: limits are set by the tests that are about them
    ATELIER_RATE_CHEAP_PER_KEY: '10000000',
    ATELIER_RATE_CHEAP_PER_TENANT: '10000000',
    ATELIER_RATE_COSTLY_PER_KEY: '10000000',
    ATELIER_RATE_COSTLY_PER_TENANT: '10000000',
    ATELIER_RATE_REQUESTS_PER_KEY: '10000000',
    // The 30 s default is wall time, and image threads run at nice 10: beside a busy test machine's other
    // processes a 24 MP photo's decode took longer than that in a panel test and the upload was refused.
    ATELIER_IMAGE_TIMEOUT_S: '600',
    ...(embedded ? {} : backendEnv(path.basename(dir))),
    ...overrides,
  });
}

/**
 * `tempConfig` on a fresh temp data dir whose database `openTestDatabase` has started (what a test that
 * builds its Apps itself needs under ATELIER_TEST_PGLITE=1); `closeTestDatabase(config.dataDir)` stops it.
 */
export async function openTempConfig(overrides: Record<string, string> = {}): Promise<Config> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-test-'));
  await openTestDatabase(dir);
  return tempConfig(overrides, dir);
}

/** Blobs plus leftovers (temp files, incomplete uploads, quarantined copies) in a store: what a failed write may have left. */
export async function storedObjectCount(blobs: App['library']['blobs']): Promise<number> {
  let n = 0;
  for await (const _ of blobs.list()) n++;
  for await (const _ of blobs.leftovers()) n++;
  return n;
}

export interface CallResult {
  isError: boolean;
  structured: Record<string, unknown>;
  content: CallToolResult['content'];
  text: string;
  error: { code: string; field: string | null; message: string; details?: Record<string, unknown> } | undefined;
}

/** An SDK client bound to one API key, with a typed `call(router, action, args)`. */
export interface TestClient {
  client: Client;
  call(router: string, action: string, args?: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

/** Wrap an SDK Client with the router calling convention `{action, args}`. */
export function wrapClient(client: Client): TestClient {
  return {
    client,
    async call(router, action, args = {}) {
      const r = await client.callTool({ name: router, arguments: { action, args } });
      const structured = (r.structuredContent ?? {}) as Record<string, unknown>;
      const text = r.content
        .filter((c) => c.type === 'text')
        .map((c) => (c as { text: string }).text)
        .join('\n');
      return {
        isError: r.isError === true,
        structured,
        content: r.content,
        text,
        error: r.isError ? (structured.error as CallResult['error']) : undefined,
      };
    },
    close: () => client.close(),
  };
}

export interface TestServer {
  app: App;
  config: Config;
  /** the first tenant (one workspace, theme, store, key) */
  tenant: TenantBundle;
  /** connect an in-memory SDK client authenticated with `apiKey` (default: the first tenant's) */
  connect(apiKey?: string, capabilities?: ClientCapabilities): Promise<TestClient>;
  /** start the real HTTP listener (Streamable HTTP + CDN) on a free port */
  listen(): Promise<HttpHandle>;
  close(): Promise<void>;
}

/**
 * Start the real application on a temp data dir (or on `dataDir`, e.g. one a CLI child process seeded;
 * it is then left in place on close, with its database), create one tenant, and hand out SDK clients over
 * an in-memory transport pair (the same McpServer code path as HTTP and stdio). Under
 * ATELIER_TEST_PGLITE=1 the data dir's PGlite is started first (`openTestDatabase`) and stopped on close.
 * `embedded`: on the SQLite file and the data dir's blob directory whatever the run's backends (the source
 * of `atelier migrate-backend`).
 */
export async function startTestServer(
  opts: { env?: Record<string, string>; configure?: (app: App) => void; dataDir?: string; embedded?: boolean } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-test-'));
  if (!opts.embedded) await openTestDatabase(dataDir);
  const config = tempConfig(opts.env, dataDir, opts.embedded);
  const log = createLogger('silent');
  const app = await buildApp(config, log);
  if (ON_PGLITE && !opts.embedded && app.stores.backend !== 'postgres')
    throw new Error('ATELIER_TEST_PGLITE=1 but the test server is not on PostgreSQL');
  opts.configure?.(app);
  app.startWorkers();
  const tenant = await createTenant(app.library.tenancy, 'Test tenant');
  const clients: TestClient[] = [];
  let http: HttpHandle | null = null;
  return {
    app,
    config,
    tenant,
    async connect(apiKey = tenant.api_key, capabilities = {}) {
      const tc = await connectApp(app, apiKey, capabilities);
      clients.push(tc);
      return tc;
    },
    async listen() {
      http ??= await startHttp(app, log, { host: '127.0.0.1', port: 0, mcp: true });
      return http;
    },
    async close() {
      for (const c of clients) await c.close().catch(() => undefined);
      await http?.close();
      await app.close();
      if (opts.dataDir) return;
      await closeTestDatabase(config.dataDir);
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

/** An in-memory SDK client for `app` authenticated with `apiKey` (e.g. a second App on the same data dir, as a second process would be). */
export async function connectApp(app: App, apiKey: string, capabilities: ClientCapabilities = {}): Promise<TestClient> {
  const server = await createServer(
    app.server,
    async () => {
      const p = await authenticate(app.library.tenancy, apiKey);
      if (!p) throw new ServiceError('unauthenticated', null, 'invalid API key');
      return p;
    },
    (await authenticate(app.library.tenancy, apiKey)) ?? undefined,
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'atelier-test', version: '0' }, { capabilities });
  await client.connect(clientTransport);
  return wrapClient(client);
}

/** Base64 of a demo file, e.g. `demoFile('images/text/craft-beer.jpg')`. */
export function demoFile(rel: string): Buffer {
  return fs.readFileSync(path.join(DEMO_DIR, rel));
}

/**
 * The sha256 the blob store keeps the bytes of one of our CDN URLs under (its public key looked up,
 * server/db/blob-keys.ts). @throws Error when the URL is not ours or no row holds its key
 */
export async function blobShaOf(srv: Pick<TestServer, 'app'>, url: string): Promise<string> {
  const p = srv.app.library.urls.parse(url);
  const blob = p ? await srv.app.library.assets.blobByKey(p.key) : null;
  if (!blob) throw new Error(`no blob behind ${url}`);
  return blob.sha256;
}
