/**
 * Several processes behind one address (issue 16, done-when 2, on today's backends): two real
 * `atelier serve --http` processes on one data dir (SQLite in WAL mode) and one blob store (Ceph RGW
 * under `npm run test:scale`, else the local directory), behind a real nginx from Debian configured with
 * the shipped `deploy/nginx-atelier.conf` (sessions routed by their `<instance>.` prefix). A client
 * imports, pages a search, opens a picker and starts an upload through the proxy; the process holding its
 * session is killed with SIGKILL; the client reconnects through the same proxy address and continues:
 * nothing committed is lost, the cursor gives the next page, the picker confirms, the upload completes.
 * A 2026-07-28 client (no session, issue 31 item 3) is answered by both processes in turn (nginx logs the
 * upstream of each request) and carries on without reconnecting after SIGKILL of one process.
 * Needs nginx (`apt-get install -y nginx-light`); .ci/run installs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { backendEnv, demoFile, REPO_ROOT, wrapClient, type TestClient } from '../mcp/harness.ts';
import { freePort, spawnCli, type Child } from '../mcp/processes.ts';
import { sendChunk, sha256 } from '../mcp/upload-helpers.ts';
import { APPS_CLIENT_CAPABILITIES } from '../mcp/wire-size.ts';

const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

/**
 * `/healthz` of `base` within `ms`, or an error naming what did not answer. With `key` the answer names
 * the process (`instance`), which /healthz tells only an authenticated caller.
 */
async function waitHealthy(base: string, key?: string, ms = 60_000): Promise<Record<string, unknown>> {
  const until = Date.now() + ms;
  for (;;) {
    const body = await fetch(`${base}/healthz`, key ? { headers: { Authorization: `Bearer ${key}` } } : {}).then(
      (r) => (r.ok ? (r.json() as Promise<Record<string, unknown>>) : null),
      () => null,
    );
    if (body) return body;
    if (Date.now() > until) throw new Error(`nothing healthy at ${base}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * nginx in the foreground with `deploy/nginx-atelier.conf`, its example addresses replaced by the test's
 * ports, wrapped in a main config whose pid, logs and temp files stay in `dir`.
 */
function startNginx(dir: string, ports: { proxy: number; a: number; b: number }): ChildProcess {
  const site = fs
    .readFileSync(path.join(REPO_ROOT, 'deploy', 'nginx-atelier.conf'), 'utf8')
    .replaceAll('127.0.0.1:3401', `127.0.0.1:${ports.a}`)
    .replaceAll('127.0.0.1:3402', `127.0.0.1:${ports.b}`)
    .replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${ports.proxy};`);
  if (!site.includes(`:${ports.proxy};`)) throw new Error('deploy/nginx-atelier.conf no longer has the example listen address');
  fs.writeFileSync(path.join(dir, 'atelier.conf'), site);
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${path.join(dir, t)};`).join('\n  ');
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off;\nworker_processes 1;\npid ${path.join(dir, 'nginx.pid')};\nerror_log ${path.join(dir, 'error.log')} warn;\n` +
      // which process answered each request, for the round-robin check
      `events { worker_connections 256; }\nhttp {\n  log_format upstream '$upstream_addr $status $request_method $request_uri';\n` +
      `  access_log ${path.join(dir, 'access.log')} upstream;\n  ${temps}\n  include ${path.join(dir, 'atelier.conf')};\n}\n`,
  );
  if (!fs.existsSync(NGINX)) throw new Error(`nginx not found at ${NGINX}: apt-get install -y nginx-light (or set NGINX_PATH)`);
  return spawn(NGINX, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf')], { stdio: 'inherit' });
}

describe('two server processes behind nginx on one database and blob store', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-proxy-'));
  const dataDir = path.join(dir, 'data');
  const nginxDir = path.join(dir, 'nginx');
  const children: Record<'a' | 'b', Child | null> = { a: null, b: null };
  let ports: { proxy: number; a: number; b: number };
  let env: Record<string, string>;
  let nginx: ChildProcess | null = null;
  let proxy = '';
  let tenant: Record<string, string>;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    // nginx's workers run as an unprivileged user when the test runs as root: they must reach their temp files.
    fs.chmodSync(dir, 0o711);
    fs.mkdirSync(nginxDir, { mode: 0o777 });
    fs.chmodSync(nginxDir, 0o777);
    ports = { proxy: await freePort(), a: await freePort(), b: await freePort() };
    proxy = `http://127.0.0.1:${ports.proxy}`;
    env = {
      ATELIER_DATA_DIR: dataDir,
      ATELIER_CDN_URL: proxy,
      ATELIER_ENRICHMENT: '0',
      ATELIER_OCR: '0',
      ATELIER_UPLOAD_CHUNK_BYTES: String(64 * 1024),
      ...backendEnv(`proxy-${randomUUID()}`),
    };
    const created = await spawnCli(['tenant', 'create', '--name', 'Proxy', '--json'], env).exited;
    if (created.code !== 0) throw new Error(`tenant create failed: ${created.stderr}`);
    tenant = JSON.parse(created.stdout) as Record<string, string>;
    await Promise.all([start('a'), start('b')]);
    nginx = startNginx(nginxDir, ports);
    await waitHealthy(proxy);
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    for (const c of Object.values(children)) c?.proc.kill('SIGKILL');
    nginx?.kill('SIGTERM');
    await Promise.all(Object.values(children).flatMap((c) => (c ? [c.exited] : [])));
    if (!process.env.KEEP_PROXY_DIR) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Start process `instance` (again) on its port and wait until it answers as itself. */
  async function start(instance: 'a' | 'b'): Promise<void> {
    children[instance] = spawnCli(['serve', '--http', '--port', String(ports[instance])], { ...env, ATELIER_INSTANCE_ID: instance });
    expect((await waitHealthy(`http://127.0.0.1:${ports[instance]}`, tenant.api_key)).instance).toBe(instance);
  }

  /** The upstream port of every /mcp request nginx logged so far. */
  const mcpUpstreams = (): number[] =>
    fs
      .readFileSync(path.join(nginxDir, 'access.log'), 'utf8')
      .split('\n')
      .filter((l) => l.includes(' /mcp'))
      .flatMap((l) =>
        l
          .split(' ')[0]!
          .split(', ')
          .map((a) => Number(a.split(':').pop())),
      );

  /** An MCP Apps client connected through the proxy; returns it with the instance holding its session. */
  async function connect(): Promise<{ c: TestClient; instance: 'a' | 'b' }> {
    const transport = new StreamableHTTPClientTransport(new URL(`${proxy}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${tenant.api_key}` } },
    });
    const client = new Client({ name: 'proxy-test', version: '0' }, { capabilities: APPS_CLIENT_CAPABILITIES });
    await client.connect(transport);
    const m = /^([ab])\.[0-9a-f-]{36}$/.exec(transport.sessionId ?? '');
    if (!m) throw new Error(`session id ${transport.sessionId} has no instance prefix`);
    const c = wrapClient(client);
    clients.push(c);
    return { c, instance: m[1] as 'a' | 'b' };
  }

  it('sessions carry their instance; after SIGKILL of that process a reconnected client keeps its data, cursor, picker and upload', async () => {
    const { c, instance } = await connect();
    const other = instance === 'a' ? 'b' : 'a';
    const theme = { theme_id: tenant.theme_id };

    // Committed through the proxy, by the process that will die.
    const imported: string[] = [];
    for (const f of ['nature/silver_fir.jpg', 'nature/prairie_falcon.jpg', 'nature/wood_anemones.jpg', 'text/craft-beer.jpg']) {
      const r = await c.call('svc_asset_import', 'import', {
        // 1,200 px copies: an inline import must fit in one /mcp body (ATELIER_MAX_REQUEST_BYTES, 1 MiB)
        data: (
          await sharp(demoFile(`images/${f}`))
            .resize({ width: 1200, withoutEnlargement: true })
            .jpeg()
            .toBuffer()
        ).toString('base64'),
        mime_type: 'image/jpeg',
        filename: path.basename(f),
      });
      expect(r.error).toBeUndefined();
      imported.push(r.structured.asset_id as string);
    }
    const page1 = await c.call('svc_asset_library', 'search', { ...theme, limit: 2 });
    expect(page1.structured).toMatchObject({ total: 4, has_more: true });
    const picker = await c.call('svc_asset_select', 'select', { ...theme, limit: 2 });
    expect(picker.structured).toMatchObject({ status: 'awaiting_user', delivery: 'panel' });
    const bytes = demoFile('images/nature/tanners_ridge.jpg');
    const begun = await c.call('svc_asset_upload_app', 'begin', { filename: 'ridge.jpg', size_bytes: bytes.length, sha256: sha256(bytes) });
    expect(begun.error).toBeUndefined();
    const uploadId = begun.structured.upload_id as string;
    const chunk = begun.structured.chunk_size_bytes as number;
    const chunks = Math.ceil(bytes.length / chunk);
    expect(chunks).toBeGreaterThan(1);
    expect((await sendChunk(c, uploadId, bytes, chunk, 0)).error).toBeUndefined();

    // The process holding the session dies at once.
    children[instance]!.proc.kill('SIGKILL');
    expect((await children[instance]!.exited).signal).toBe('SIGKILL');
    children[instance] = null;

    // The old session is gone (the proxy falls back to the other process, which does not know it)…
    await expect(c.call('svc_asset_library', 'search', theme)).rejects.toThrow();
    // …and a new one through the same address lands on the survivor and carries on.
    const again = await connect();
    expect(again.instance).toBe(other);
    const d = again.c;

    const page2 = await d.call('svc_asset_library', 'search', { ...theme, limit: 2, cursor: page1.structured.next_cursor });
    expect(page2.error).toBeUndefined();
    const ids = [...(page1.structured.assets as { id: string }[]), ...(page2.structured.assets as { id: string }[])].map((a) => a.id);
    expect(ids.sort()).toEqual([...imported].sort());
    expect(page2.structured.has_more).toBe(false);

    for (const id of imported) {
      const v = await d.call('svc_assets', 'view', { asset_id: id });
      expect(v.error).toBeUndefined();
    }
    const original = (page1.structured.assets as { id: string; url: string }[])[0]!;
    const cdn = await fetch(original.url);
    expect(cdn.status).toBe(200);
    expect((await cdn.arrayBuffer()).byteLength).toBeGreaterThan(1000);

    const pickerId = picker.structured.picker_id as string;
    const submitted = await d.call('svc_asset_panel', 'submit_selection', { picker_id: pickerId, asset_ids: [imported[2], imported[0]] });
    expect(submitted.error).toBeUndefined();
    const state = await d.call('svc_asset_select', 'get_selection', { picker_id: pickerId });
    expect(state.structured).toMatchObject({ status: 'confirmed' });
    expect((state.structured.selection as { id: string }[]).map((a) => a.id)).toEqual([imported[2], imported[0]]);

    for (let i = 1; i < chunks; i++) expect((await sendChunk(d, uploadId, bytes, chunk, i)).error).toBeUndefined();
    const done = await d.call('svc_asset_upload_app', 'complete', { upload_id: uploadId });
    expect(done.error).toBeUndefined();
    const after = await d.call('svc_asset_library', 'search', theme);
    expect(after.structured.total).toBe(5);
  }, 180_000);

  it('a 2026-07-28 client without a session is answered by both processes in turn and survives SIGKILL of one mid-select and mid-upload', async () => {
    for (const i of ['a', 'b'] as const) if (!children[i]) await start(i);
    const client = new Client(
      { name: 'proxy-modern', version: '0' },
      { capabilities: APPS_CLIENT_CAPABILITIES, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${proxy}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${tenant.api_key}` } },
      }),
    );
    const c = wrapClient(client);
    clients.push(c);
    const theme = { theme_id: tenant.theme_id };
    const logged = mcpUpstreams().length;
    // nginx keeps a process it saw die out of the pool for fail_timeout (10 s): ask until both have answered
    const until = Date.now() + 30_000;
    let page1 = await c.call('svc_asset_library', 'search', { ...theme, limit: 2 });
    while (new Set(mcpUpstreams().slice(logged)).size < 2 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 500));
      page1 = await c.call('svc_asset_library', 'search', { ...theme, limit: 2 });
    }
    expect(page1.error).toBeUndefined();
    expect(new Set(mcpUpstreams().slice(logged))).toEqual(new Set([ports.a, ports.b]));
    expect(page1.structured).toMatchObject({ has_more: true });
    const total = page1.structured.total as number;

    const picker = await c.call('svc_asset_select', 'select', { ...theme, limit: 2 });
    expect(picker.structured).toMatchObject({ status: 'awaiting_user', delivery: 'panel' });
    const bytes = demoFile('images/nature/prairie_falcon.jpg');
    const begun = await c.call('svc_asset_upload_app', 'begin', {
      filename: 'falcon-full.jpg',
      size_bytes: bytes.length,
      sha256: sha256(bytes),
    });
    expect(begun.error).toBeUndefined();
    const uploadId = begun.structured.upload_id as string;
    const chunk = begun.structured.chunk_size_bytes as number;
    const chunks = Math.ceil(bytes.length / chunk);
    expect(chunks).toBeGreaterThan(2);
    // two chunks before the kill, the rest after it
    for (const i of [0, 1]) expect((await sendChunk(c, uploadId, bytes, chunk, i)).error).toBeUndefined();

    children.a!.proc.kill('SIGKILL');
    expect((await children.a!.exited).signal).toBe('SIGKILL');
    children.a = null;

    // the same client, no reconnect: every later request is answered by b from the shared database
    const page2 = await c.call('svc_asset_library', 'search', { ...theme, limit: 2, cursor: page1.structured.next_cursor });
    expect(page2.error).toBeUndefined();
    const seen = [...(page1.structured.assets as { id: string }[]), ...(page2.structured.assets as { id: string }[])].map((a) => a.id);
    expect(new Set(seen).size).toBe(Math.min(4, total));
    const submitted = await c.call('svc_asset_panel', 'submit_selection', {
      picker_id: picker.structured.picker_id,
      asset_ids: [seen[1], seen[0]],
    });
    expect(submitted.error).toBeUndefined();
    const state = await c.call('svc_asset_select', 'get_selection', { picker_id: picker.structured.picker_id });
    expect(state.structured).toMatchObject({ status: 'confirmed' });
    expect((state.structured.selection as { id: string }[]).map((a) => a.id)).toEqual([seen[1], seen[0]]);
    for (let i = 2; i < chunks; i++) expect((await sendChunk(c, uploadId, bytes, chunk, i)).error).toBeUndefined();
    const done = await c.call('svc_asset_upload_app', 'complete', { upload_id: uploadId });
    expect(done.error).toBeUndefined();
    const after = await c.call('svc_asset_library', 'search', theme);
    expect(after.structured.total).toBe(total + 1);
  }, 180_000);
});
