/**
 * The container image as users run it (issue 34): the image scripts/container-test.sh built from the
 * Dockerfile (ATELIER_CONTAINER_IMAGE, in the buildah storage ATELIER_CONTAINER_BUILDAH names), started
 * through its own ENTRYPOINT and CMD with `buildah run` in one working container, whose `/data` is the
 * volume buildah makes for the image's VOLUME (as `docker run` without `-v` makes an anonymous one; buildah
 * 1.28 ignores a `--volume` at that path): `tenant create --json` prints a key, `serve --http` answers
 * /healthz and the image's HEALTHCHECK command, an MCP SDK client over Streamable HTTP imports a photo and
 * finds it by search, the server runs as the image's non-root user, its files land in that volume and not
 * in the container's file system, and it exits 0 on SIGTERM.
 * Run by that script only (it builds the image first): `scripts/container-test.sh`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFile, type TestClient, wrapClient } from '../mcp/harness.ts';

const run = promisify(execFile);
const image = process.env.ATELIER_CONTAINER_IMAGE;
const storageArgs = (process.env.ATELIER_CONTAINER_BUILDAH ?? '').split(' ').filter(Boolean);

/** `buildah <storage args> ...args`, its stdout. */
async function buildah(...args: string[]): Promise<string> {
  return (await run('buildah', [...storageArgs, ...args], { maxBuffer: 16 * 1024 * 1024 })).stdout;
}

/** The Docker-format config of an image, as `buildah inspect` reports it. */
interface ImageConfig {
  User: string;
  Env: string[];
  Entrypoint: string[];
  Cmd: string[];
  WorkingDir: string;
  Volumes: Record<string, unknown>;
  ExposedPorts: Record<string, unknown>;
  Healthcheck?: { Test: string[] };
}

/** A TCP port nobody listens on right now (the container shares the host's network). */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/**
 * The process listening on TCP `port`: the socket's inode from the kernel's table (/proc/net/tcp{,6}: local
 * address `HEX_IP:HEX_PORT` in column 2, state 0A = LISTEN in column 4, inode in column 10), then the
 * process holding `socket:[inode]` among its file descriptors.
 */
function listenerPid(port: number): number | null {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  let inode = '';
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(`:${hex}`) && f[3] === '0A') inode = f[9]!;
    }
  }
  if (!inode) return null;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const fds = path.join('/proc', pid, 'fd');
    try {
      if (fs.readdirSync(fds).some((fd) => fs.readlinkSync(path.join(fds, fd)) === `socket:[${inode}]`)) return Number(pid);
    } catch {
      // a process that exited meanwhile, or a kernel thread
    }
  }
  return null;
}

/** The real, effective, saved and filesystem uids of a process (/proc/PID/status `Uid:` line). */
function uids(pid: number): number[] {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Uid:'))!;
  return line.split(/\s+/).slice(1).map(Number);
}

/**
 * The host directory mounted at `target` in the mount namespace of `pid`: its mountinfo line gives the
 * mount's root inside its file system (field 4) and the device (field 3); the host's own mount of that
 * device's root gives the prefix (proc(5), /proc/PID/mountinfo).
 */
function mountSource(pid: number, target: string): string | null {
  const parse = (file: string) =>
    fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
  const m = parse(`/proc/${pid}/mountinfo`).find((f) => f[4] === target);
  const host = m && parse('/proc/self/mountinfo').find((f) => f[2] === m[2] && f[3] === '/');
  return m && host ? path.join(host[4]!, m[3]!) : null;
}

/** Every file under `dir`, as paths relative to it. */
function files(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).flatMap((e) => {
    return e.isFile() ? [path.relative(dir, path.join(e.parentPath, e.name))] : [];
  });
}

describe('the container image', () => {
  let config: ImageConfig;
  let ctr = '';
  let port = 0;
  let server: ChildProcess | null = null;
  let serverLog = '';
  let tenant: Record<string, string>;
  let client: TestClient | null = null;
  let pid: number | null = null;

  /** `buildah run` in the working container: `docker run` with the same container's volume each time. */
  const runArgs = (env: Record<string, string>, argv: string[]): string[] => [
    ...storageArgs,
    'run',
    '--isolation',
    'chroot',
    ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    ctr,
    '--',
    ...argv,
  ];

  beforeAll(async () => {
    if (!image) throw new Error('no ATELIER_CONTAINER_IMAGE: run scripts/container-test.sh, which builds the image first');
    config = (JSON.parse(await buildah('inspect', '--type', 'image', image)) as { Docker: { config: ImageConfig } }).Docker.config;
    ctr = (await buildah('from', '--pull-never', image)).trim();
    port = await freePort();
  });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    if (server?.pid && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      if (pid) process.kill(pid, 'SIGTERM');
      else server.kill('SIGTERM');
      const timer = setTimeout(() => process.kill(-server!.pid!, 'SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    if (ctr) await buildah('rm', ctr).catch(() => undefined);
  });

  it('is configured as the README says: entry point, non-root user, /data volume, port 3333, a health check', () => {
    expect(config.Entrypoint).toEqual(['node', '/app/bin/atelier.mjs']);
    expect(config.Cmd).toEqual(['serve', '--http']);
    expect(config.User).toBe('node');
    expect(Object.keys(config.Volumes)).toEqual(['/data']);
    expect(Object.keys(config.ExposedPorts)).toEqual(['3333/tcp']);
    expect(config.Env).toEqual(expect.arrayContaining(['ATELIER_DATA_DIR=/data', 'ATELIER_HOST=0.0.0.0', 'NODE_ENV=production']));
    expect(config.Healthcheck?.Test[0]).toBe('CMD');
  });

  it('`tenant create --json` through the entry point prints the new tenant and its API key', async () => {
    const { stdout } = await run('buildah', runArgs({}, [...config.Entrypoint, 'tenant', 'create', '--name', 'Container shop', '--json']));
    tenant = JSON.parse(stdout) as Record<string, string>;
    expect(Object.keys(tenant).sort()).toEqual(['api_key', 'store_id', 'tenant_id', 'theme_id', 'workspace_id']);
  });

  it('serves /healthz on the configured port, and the image’s HEALTHCHECK command passes (and fails with no server)', async () => {
    const env = { ATELIER_PORT: String(port), ATELIER_ALLOWED_HOSTS: '127.0.0.1', ATELIER_CDN_URL: `http://127.0.0.1:${port}` };
    server = spawn('buildah', runArgs(env, [...config.Entrypoint, ...config.Cmd]), { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (d: Buffer) => (serverLog += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (serverLog += d.toString()));
    const deadline = Date.now() + 120_000;
    let health: Response | null = null;
    while (!health && Date.now() < deadline) {
      if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}:\n${serverLog}`);
      health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      if (!health) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(health?.status, serverLog).toBe(200);
    expect(await health!.json()).toMatchObject({ ok: true, service: 'atelier' });

    const check = config.Healthcheck!.Test.slice(1);
    await expect(run('buildah', runArgs({ ATELIER_PORT: String(port) }, check))).resolves.toBeDefined();
    await expect(run('buildah', runArgs({ ATELIER_PORT: String(await freePort()) }, check))).rejects.toMatchObject({ code: 1 });
  });

  it('answers an MCP client over Streamable HTTP with the printed key: a photo imported, then found by search', async () => {
    const sdk = new Client({ name: 'container-test', version: '0' });
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${tenant.api_key}` } },
      }),
    );
    client = wrapClient(sdk);
    const photo = demoFile('images/nature/tanners_ridge.jpg');
    const imported = await client.call('svc_asset_import', 'import', {
      data: photo.toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'ridge-hero.jpg',
      alt_text: 'Ridge at dusk',
    });
    expect(imported.error).toBeUndefined();
    const found = await client.call('svc_asset_library', 'search', { theme_id: tenant.theme_id, query: 'ridge dusk' });
    expect(found.error).toBeUndefined();
    expect((found.structured.assets as { id: string }[]).map((a) => a.id)).toContain(imported.structured.asset_id);

    // Its permanent URL is served by the container, from a blob in the volume mounted at /data.
    const res = await fetch(String(imported.structured.url));
    expect(res.status).toBe(200);
    const sha = createHash('sha256')
      .update(Buffer.from(await res.arrayBuffer()))
      .digest('hex');
    pid = listenerPid(port);
    const volume = mountSource(pid!, '/data');
    expect(volume).toMatch(/buildah-volumes/);
    const blobs = files(path.join(volume!, 'blobs')).map((f) =>
      createHash('sha256')
        .update(fs.readFileSync(path.join(volume!, 'blobs', f)))
        .digest('hex'),
    );
    expect(blobs).toContain(sha);
  });

  it('runs as the image’s non-root user and keeps its data in the /data volume, not in the container', async () => {
    expect(uids(pid!)).toEqual([1000, 1000, 1000, 1000]);
    const volume = mountSource(pid!, '/data')!;
    const stored = files(volume);
    expect(stored).toContain('atelier.db');
    for (const f of stored) expect(fs.statSync(path.join(volume, f)).uid, f).toBe(1000);
    // The container's own file system under the volume's mount point stays empty.
    const mnt = (await buildah('mount', ctr)).trim();
    expect(fs.readdirSync(path.join(mnt, 'data'))).toEqual([]);
  });

  it('exits 0 on SIGTERM to its process, as `docker stop` asks it to', async () => {
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
    process.kill(pid!, 'SIGTERM');
    expect(await exited, serverLog).toBe(0);
  });
});
