import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { backendEnv, demoFile, queryDataDir, REPO_ROOT, wrapClient } from './harness.ts';
import { CLI, freePort, resume, spawnCli, waitPaused, type Child } from './processes.ts';

async function waitHealthy(port: number): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing healthy on port ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The exit of a child, or an error (and the child killed) when it does not exit within `ms`. */
async function exitWithin(child: Child, ms: number): Promise<Awaited<Child['exited']>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.proc.kill('SIGKILL');
      reject(new Error(`the process did not exit within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([child.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Send JSON-RPC messages (one per line) to a stdio server. */
function send(child: Child, ...messages: Record<string, unknown>[]): void {
  for (const m of messages) child.proc.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
}
const INIT = [
  { id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } },
  { method: 'notifications/initialized' },
];

/**
 * Several real `atelier` processes on one data dir (issue 10: races between processes). The children share
 * the data dir's backends (`spawnCli`, `backendEnv`): under `npm run test:scale` part 2 its own PostgreSQL
 * schema and S3 prefix, so the races run on PostgreSQL too.
 */
describe('processes sharing a data dir', () => {
  const dirs: string[] = [];
  const tmp = (prefix: string): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  const cliJson = async (args: string[], env: Record<string, string>): Promise<Record<string, unknown>> => {
    const r = await spawnCli([...args, '--json'], env).exited;
    if (r.code !== 0) throw new Error(`atelier ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  it('two processes opening a new data dir at once both migrate it without error', async () => {
    // On PostgreSQL a fresh schema: its migrator pauses at the same point (inside its advisory lock).
    const dataDir = tmp('atelier-migrate-');
    const pd = tmp('atelier-pause-');
    const env = { ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0', ATELIER_TEST_PAUSE_AT: 'migrate', ATELIER_TEST_PAUSE_DIR: pd };
    const a = spawnCli(['gc', '--json'], env);
    const b = spawnCli(['gc', '--json'], env);
    await waitPaused(pd, 'migrate', 1);
    // Give the second process the time to reach the same instant (without the fix it pauses there too,
    // having read the same empty list of applied versions; with it, it waits for the first one's lock).
    await waitPaused(pd, 'migrate', 2, 4000).catch(() => null);
    resume(pd, 'migrate');
    const [ra, rb] = await Promise.all([a.exited, b.exited]);
    expect({ a: ra.code, b: rb.code, errors: `${ra.stderr}${rb.stderr}` }).toEqual({ a: 0, b: 0, errors: '' });
    // each version is applied once (its row's key): every migration of the backend has a row
    const [applied] = await queryDataDir<{ n: number }>(dataDir, 'SELECT count(*) AS n FROM schema_migrations');
    const dir = backendEnv(path.basename(dataDir)).ATELIER_DATABASE_URL ? 'server/db/postgres/migrations' : 'server/db/sqlite/migrations';
    expect(applied!.n).toBe(fs.readdirSync(path.join(REPO_ROOT, dir)).filter((f) => f.endsWith('.sql')).length);
  }, 120_000);

  it('three processes importing identical bytes at once: one stores them, the other two deduplicate', async () => {
    const dataDir = tmp('atelier-dedupe-');
    const pd = tmp('atelier-pause-');
    const env = { ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0' };
    await cliJson(['tenant', 'create', '--name', 'Dedupe'], env);
    const file = path.join(REPO_ROOT, 'demo/images/nature/silver_fir.jpg');
    // All three have found no asset with these bytes and stored the blobs; their inserts race.
    const paused = { ...env, ATELIER_TEST_PAUSE_AT: 'import-insert', ATELIER_TEST_PAUSE_DIR: pd };
    const children = [0, 1, 2].map(() => spawnCli(['import', file, '--json'], paused));
    await waitPaused(pd, 'import-insert', 3);
    resume(pd, 'import-insert');
    const results = await Promise.all(children.map((c) => c.exited));
    const summaries = results.map(
      (r) => JSON.parse(r.stdout) as { imported: number; deduplicated: number; failed: { code: string }[]; assets: { asset_id: string }[] },
    );
    // (PostgreSQL's unique violation, 23505, once answered `internal` here)
    expect(summaries.map((s) => s.failed.map((f) => f.code))).toEqual([[], [], []]);
    expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(summaries.map((s) => s.imported).sort()).toEqual([0, 0, 1]);
    expect(summaries.map((s) => s.deduplicated).sort()).toEqual([0, 1, 1]);
    expect(new Set(summaries.map((s) => s.assets[0]!.asset_id)).size).toBe(1);
  }, 120_000);

  it('one-shot commands (import, credits show) never claim enrichment jobs: only serve/start run workers', async () => {
    const dataDir = tmp('atelier-workers-');
    const env = { ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0' };
    const t = await cliJson(['tenant', 'create', '--name', 'Workers'], env);
    await cliJson(['import', path.join(REPO_ROOT, 'demo/images/nature/silver_fir.jpg')], env);
    await cliJson(['credits', 'show', '--workspace', String(t.workspace_id)], env);
    // no port lists jobs with their attempts: read the table (SQLite file or PostgreSQL schema)
    const jobs = await queryDataDir(dataDir, 'SELECT kind, state, attempts FROM enrichment_jobs');
    // The job waits for a server, untouched: no process claimed and aborted it.
    expect(jobs).toEqual([{ kind: 'analyze', state: 'queued', attempts: 0 }]);
  }, 120_000);

  it('a stdio server beside an HTTP server on the same port reuses its CDN, and beside another program falls back to a free port', async () => {
    const dataDir = tmp('atelier-ports-');
    const env = { ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0' };
    const t = await cliJson(['tenant', 'create', '--name', 'Ports'], env);
    await cliJson(['import', path.join(REPO_ROOT, 'demo/images/nature/silver_fir.jpg')], env);
    const port = await freePort();
    const web = spawnCli(['serve', '--http', '--port', String(port)], env);
    const stdioSearch = async (): Promise<{ url: string; stderr: string }> => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', '--stdio'],
        env: {
          ...process.env,
          ...backendEnv(path.basename(dataDir)),
          ...env,
          ATELIER_PORT: String(port),
          ATELIER_API_KEY: String(t.api_key),
          ATELIER_LOG_LEVEL: 'info',
        },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: 'second-stdio', version: '0' });
      await client.connect(transport);
      try {
        const r = await wrapClient(client).call('svc_asset_library', 'search', {
          theme_id: t.theme_id,
          query: 'silver fir',
          mode: 'filename',
        });
        const url = (r.structured.assets as { url: string }[])[0]!.url;
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(demoFile('images/nature/silver_fir.jpg'))).toBe(true);
        return { url, stderr };
      } finally {
        await client.close();
      }
    };
    try {
      await waitHealthy(port);
      const reused = await stdioSearch();
      expect(reused.url.startsWith(`http://127.0.0.1:${port}/a/`)).toBe(true);
      expect(reused.stderr).toContain('served by another Atelier process on this data dir');
    } finally {
      web.proc.kill('SIGTERM');
      await web.exited;
    }
    // Now a program that is not Atelier holds the port: the stdio server serves /cdn elsewhere and says so.
    const foreign = http.createServer((_q, s) => void s.end('not atelier'));
    await new Promise<void>((r) => foreign.listen(port, '127.0.0.1', r));
    try {
      const fallback = await stdioSearch();
      expect(fallback.url.startsWith(`http://127.0.0.1:${port}/`)).toBe(false);
      expect(fallback.stderr).toContain(`port ${port} is in use by another program`);
    } finally {
      await new Promise((r) => foreign.close(r));
    }
  }, 180_000);

  it('a stdio server on the embedded default loads no OAuth, S3, PostgreSQL, video or outbound-HTTP library', async () => {
    // What a host such as Claude Desktop starts for each conversation: its start time is mostly module loading.
    const dataDir = tmp('atelier-modules-');
    const env = { ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0' };
    const t = await cliJson(['tenant', 'create', '--name', 'Modules'], env);
    const out = path.join(dataDir, 'loaded.json');
    // A loader hook (Node's module.registerHooks) that writes the npm packages the process loaded, at exit.
    const hook = path.join(dataDir, 'hook.mjs');
    fs.writeFileSync(
      hook,
      `import fs from 'node:fs';
import { registerHooks } from 'node:module';
const seen = new Set();
const pkg = new RegExp('node_modules/((?:@[^/]+/)?[^/]+)/');
registerHooks({ load(url, ctx, next) { const m = pkg.exec(url); if (m) seen.add(m[1]); return next(url, ctx); } });
process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify([...seen].sort())));
`,
    );
    const child = spawnCli(['serve', '--stdio'], { ...env, ATELIER_API_KEY: String(t.api_key) }, ['--import', `file://${hook}`]);
    send(child, ...INIT, {
      id: 2,
      method: 'tools/call',
      params: { name: 'svc_asset_library', arguments: { action: 'search', args: { theme_id: t.theme_id, query: 'fir' } } },
    });
    let answered = '';
    child.proc.stdout!.on('data', (d: Buffer) => (answered += d.toString()));
    const until = Date.now() + 60_000;
    while (!/"id":2/.test(answered) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(answered).toContain('"id":2');
    expect(answered).not.toContain('"isError":true');
    child.proc.stdin!.end();
    expect((await exitWithin(child, 30_000)).code).toBe(0);
    const loaded = JSON.parse(fs.readFileSync(out, 'utf8')) as string[];
    expect(loaded).toContain('better-sqlite3'); // the hook saw the packages
    // the test's own backends (test:scale) may be PostgreSQL and S3: only those are then expected
    const shared = backendEnv(path.basename(dataDir));
    const never = ['oidc-provider', 'jose', 'mediabunny', 'undici'];
    if (!shared.ATELIER_DATABASE_URL) never.push('pg');
    if (!shared.ATELIER_BLOB_STORE) never.push('@aws-sdk/client-s3');
    expect(loaded.filter((p) => never.includes(p))).toEqual([]);
  }, 120_000);

  for (const how of ['stdin end', 'SIGTERM'] as const) {
    it(`a stdio server exits cleanly on ${how}, after finishing the import in progress`, async () => {
      const dataDir = tmp('atelier-exit-');
      const pd = tmp('atelier-pause-');
      const env = { ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0' };
      const t = await cliJson(['tenant', 'create', '--name', 'Exit'], env);
      const child = spawnCli(['serve', '--stdio'], {
        ...env,
        ATELIER_API_KEY: String(t.api_key),
        ATELIER_TEST_PAUSE_AT: 'import-insert',
        ATELIER_TEST_PAUSE_DIR: pd,
      });
      send(child, ...INIT, {
        id: 2,
        method: 'tools/call',
        params: {
          name: 'svc_asset_import',
          arguments: {
            action: 'import',
            args: {
              data: demoFile('images/nature/silver_fir.jpg').toString('base64'),
              mime_type: 'image/jpeg',
              filename: 'silver_fir.jpg',
            },
          },
        },
      });
      // The import has written its blobs and is about to insert the row when the client goes away.
      await waitPaused(pd, 'import-insert');
      if (how === 'stdin end') child.proc.stdin!.end();
      else child.proc.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300)); // let the process see it before the import goes on
      resume(pd, 'import-insert');
      const r = await exitWithin(child, 30_000);
      expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
      // The import in progress was finished, not torn: another process finds the bytes already stored.
      const again = await cliJson(['import', path.join(REPO_ROOT, 'demo/images/nature/silver_fir.jpg')], env);
      expect(again).toMatchObject({ imported: 0, deduplicated: 1 });
    }, 120_000);
  }
});
