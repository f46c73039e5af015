import { serveStdio as serveMcpStdio } from '@modelcontextprotocol/server/stdio';
import { buildApp, type App } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './log.ts';
import { createServer } from './mcp/create-server.ts';
import { startHttp, type HttpHandle } from './mcp/http.ts';
import { authenticate } from './tenancy/admin.ts';
import { ServiceError } from './errors.ts';
import { localResolver, localStdioPrincipal } from './local-principal.ts';
import { seedDemo } from './seed.ts';

export interface Running {
  app: App;
  http: HttpHandle;
  log: Logger;
  /**
   * Graceful stop (idempotent): stop taking calls, let calls in progress finish for up to
   * ATELIER_SHUTDOWN_GRACE_MS (later ones are abandoned: their writes are transactional and their blobs
   * go with the blob GC; running enrichment jobs go back to the queue), then close the listener and the
   * database.
   */
  stop(): Promise<void>;
  /** Resolves when the client went away (stdio: end of stdin); never for HTTP. */
  clientGone: Promise<void>;
}

/** Load config and build the app (the composition root shared by every CLI command). No background worker starts. */
export async function boot(env: Record<string, string | undefined> = process.env): Promise<{ config: Config; app: App; log: Logger }> {
  const config = loadConfig(env);
  const log = createLogger(config.logLevel);
  const app = await buildApp(config, log);
  return { config, app, log };
}

function gracefulStop(app: App, log: Logger, close: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | null = null;
  return () => {
    stopping ??= (async () => {
      const running = app.server.inflight?.count() ?? 0;
      if (running > 0) log.info({ calls: running }, 'shutting down: waiting for tool calls in progress');
      const idle = (await app.server.inflight?.idle(app.config.env.ATELIER_SHUTDOWN_GRACE_MS)) ?? true;
      if (!idle)
        log.warn(
          { calls: app.server.inflight?.count(), grace_ms: app.config.env.ATELIER_SHUTDOWN_GRACE_MS },
          'shutting down: abandoning tool calls still in progress (nothing partial is kept)',
        );
      await close();
      await app.close();
    })();
    return stopping;
  };
}

/** A server refuses to start on a blob store it cannot use (wrong keys, missing bucket, unwritable directory). */
async function checkBlobStore(app: App): Promise<void> {
  try {
    await app.library.blobs.check();
  } catch (e) {
    const hint =
      app.config.blobStore.kind === 's3'
        ? 'check ATELIER_BLOB_STORE (the bucket must exist), ATELIER_S3_ENDPOINT and the S3 keys'
        : 'check ATELIER_DATA_DIR';
    throw new Error(
      `the blob store ${app.library.blobs.location} cannot be used (${hint}): ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  }
}

/** A start-up failure the operator can fix (the port is taken): the CLI prints its message as one line and exits 2. */
export class StartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartError';
  }
}

/**
 * Serve MCP over Streamable HTTP at `/mcp` (with the CDN on the same listener) and start the workers.
 * @param opts.warm `before` (default): load what the first searches would before listening, so no request
 *   waits behind it; `after`: listen first and load in the background (`npm start`, whose first start
 *   builds the word vectors and WordNet while the demo is seeded; a search meanwhile waits for them)
 * @throws StartError when the port is taken (the message names it and the fix); Error when the blob store cannot be used
 */
export async function serveHttp(app: App, log: Logger, port = app.config.port, opts: { warm?: 'before' | 'after' } = {}): Promise<Running> {
  await checkBlobStore(app);
  if (opts.warm !== 'after') await app.warmSearch();
  let http: HttpHandle;
  try {
    http = await startHttp(app, log, { host: app.config.host, port, mcp: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new StartError(
        `port ${port} on ${app.config.host} is already in use: stop the other server or pass --port / ATELIER_PORT (0 = any free port)`,
        { cause: e },
      );
    throw e;
  }
  app.startWorkers();
  log.info({ url: http.mcpUrl }, 'MCP Streamable HTTP listening');
  if (opts.warm === 'after') void app.warmSearch().catch((err: unknown) => log.warn({ err }, 'search warm-up failed'));
  return { app, http, log, stop: gracefulStop(app, log, () => http.close()), clientGone: new Promise<void>(() => undefined) };
}

/**
 * `/healthz` of whatever listens on host:port, or null (nothing, not HTTP, not JSON) within 2 s. It shows
 * `data_id` only to a caller with a key valid there, so ours is sent: a server on our data dir accepts it.
 */
async function probeHealth(host: string, port: number, apiKey: string | null): Promise<{ service?: unknown; data_id?: unknown } | null> {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  try {
    const res = await fetch(`http://${h}:${port}/healthz`, {
      signal: AbortSignal.timeout(2000),
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    });
    return res.ok ? ((await res.json()) as { service?: unknown; data_id?: unknown }) : null;
  } catch {
    return null;
  }
}

/**
 * The CDN listener of a stdio server. Several stdio servers (one per MCP client) and an HTTP server may
 * run on one data dir with the same ATELIER_PORT: when the port is held by an Atelier server on the
 * same data dir (its `/healthz` shows our `data_id`), its `/cdn` serves our blobs, so asset URLs use it;
 * otherwise this process listens on a free port and says so in the log. Never fails for a held port.
 */
async function cdnForStdio(app: App, log: Logger, port: number): Promise<HttpHandle> {
  try {
    return await startHttp(app, log, { host: app.config.host, port, mcp: false });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0) throw e;
  }
  const health = await probeHealth(app.config.host, port, app.config.apiKey);
  if (health?.service === 'atelier' && health.data_id === app.dataId) {
    const h = app.config.host === '0.0.0.0' ? '127.0.0.1' : app.config.host.includes(':') ? `[${app.config.host}]` : app.config.host;
    const url = `http://${h}:${port}`;
    app.setCdnBase(url);
    log.info({ cdn: url }, 'the CDN port is served by another Atelier process on this data dir: asset URLs use it');
    return { url, mcpUrl: `${url}/mcp`, close: async () => undefined };
  }
  const http = await startHttp(app, log, { host: app.config.host, port: 0, mcp: false });
  log.warn(
    { port, cdn: http.url, held_by: health?.service === 'atelier' ? 'an Atelier server on another data dir' : 'another program' },
    `port ${port} is in use by ${health?.service === 'atelier' ? 'an Atelier server on another data dir' : 'another program'}: this stdio server serves /cdn on ${http.url} instead; its asset URLs work while it runs (set ATELIER_CDN_URL and a free ATELIER_PORT for URLs that outlive it)`,
  );
  return http;
}

/**
 * Serve MCP over stdio (stdout carries JSON-RPC only) and start the workers. With ATELIER_API_KEY it acts as
 * that key; without it, as the data dir's single tenant (`localStdioPrincipal`: the desktop bundle needs no key
 * to paste; a data dir with no tenant gets the demo, whose photos are imported in the background after the
 * transport connects, so the client's first requests do not wait ~30 s for them). A CDN listener serves asset
 * URLs (see `cdnForStdio`). `clientGone` resolves when stdin ends (the client process went away without a
 * signal): the caller then stops gracefully.
 * @throws Error when ATELIER_API_KEY is unknown, or (without it) when the data dir holds several tenants
 */
export async function serveStdio(app: App, log: Logger, port = app.config.port): Promise<Running> {
  const apiKey = app.config.apiKey;
  const local = apiKey ? null : await localStdioPrincipal(app);
  const principal = local ? local.principal : await authenticate(app.library.tenancy, apiKey!);
  if (!principal) throw new Error('ATELIER_API_KEY is not a valid API key for this data directory');
  await checkBlobStore(app);
  // before the transport connects: the client's first search does not wait for the loading
  await app.warmSearch();
  const http = await cdnForStdio(app, log, port);
  const resolvePrincipal = local
    ? localResolver(local)
    : async (): Promise<typeof principal> => {
        if (!(await authenticate(app.library.tenancy, apiKey!)))
          throw new ServiceError('unauthenticated', null, 'ATELIER_API_KEY has been revoked');
        return principal;
      };
  // A client that went away closes our stdout too: answers of calls finishing after that are dropped, not fatal.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') log.error({ err }, 'stdout failed');
  });
  const clientGone = new Promise<void>((resolve) => {
    process.stdin.once('end', () => {
      log.info('stdin ended (the client went away): shutting down');
      resolve();
    });
  });
  // The SDK's stdio entry serves both eras: the opening exchange (`initialize`, or a 2026-07-28 request
  // with its `_meta` envelope) pins the connection's era, and the factory builds its server for that era.
  const served = serveMcpStdio(({ era }) => createServer(app.server, resolvePrincipal, principal, era), {
    onerror: (err) => log.warn({ err }, 'stdio MCP error'),
  });
  app.startWorkers();
  log.info({ cdn: http.url, tenant_id: principal.tenantId, keyless: local !== null }, 'MCP stdio ready');
  const seeding = local?.fresh ? seedInBackground(app, log, local.markSeeded) : Promise.resolve();
  return {
    app,
    http,
    log,
    clientGone,
    stop: gracefulStop(app, log, async () => {
      // an import in progress must not meet a closed database; an unfinished seed goes on at the next keyless start
      await Promise.race([seeding, new Promise((r) => setTimeout(r, app.config.env.ATELIER_SHUTDOWN_GRACE_MS).unref())]);
      await served.close();
      await http.close();
    }),
  };
}

/** Import the demo photos and catalog into a data dir's new demo tenant, then mark it complete; never rejects (the outcome is logged). */
async function seedInBackground(app: App, log: Logger, markSeeded: () => Promise<void>): Promise<void> {
  try {
    const r = await seedDemo(app);
    if (r.failed.length === 0) await markSeeded();
    log.info({ imported: r.imported, skipped: r.skipped, failed: r.failed }, 'demo library seeded for the local tenant');
  } catch (err) {
    log.warn({ err }, 'seeding the demo library failed (run `atelier seed-demo` on this data dir to finish it)');
  }
}
