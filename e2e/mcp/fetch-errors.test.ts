import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';
import { freePort, spawnCli } from './processes.ts';

/** Issue 34 item 2: a URL the network cannot deliver is `fetch_failed` (host, cause, retryable), not the caller's mistake. */
describe('network failures of import and reference URLs', () => {
  let srv: TestServer;
  let c: TestClient;
  let origin: http.Server;
  let hung: net.Server;
  const sockets: net.Socket[] = [];
  let port = 0;
  let hungPort = 0;
  let closedPort = 0;
  let ownUrl = '';
  beforeAll(async () => {
    origin = http.createServer((q, s) => {
      if (q.url === '/busy.jpg') s.writeHead(503).end('try later');
      else s.writeHead(404).end('no such file');
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    port = (origin.address() as AddressInfo).port;
    // accepts the connection and never answers
    hung = net.createServer((sock) => sockets.push(sock));
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    hungPort = (hung.address() as AddressInfo).port;
    closedPort = await freePort();
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_FETCH_TIMEOUT_MS: '1500' } });
    c = await srv.connect();
    const jpg = demoFile('images/nature/silver_fir.jpg');
    ownUrl = (await c.call('svc_asset_import', 'import', { data: jpg.toString('base64'), mime_type: 'image/jpeg', filename: 'fir.jpg' }))
      .structured.url as string;
  });
  afterAll(async () => {
    await srv.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => origin.close(r));
    await new Promise((r) => hung.close(r));
  });

  const cases = (): [string, string, Record<string, unknown>][] => [
    ['refused connection', `http://127.0.0.1:${closedPort}/x.jpg`, { host: '127.0.0.1', cause: 'connection_refused', retryable: true }],
    ['timeout', `http://127.0.0.1:${hungPort}/x.jpg`, { host: '127.0.0.1', cause: 'timeout', retryable: true }],
    ['TLS to a plain-HTTP port', `https://127.0.0.1:${port}/x.jpg`, { host: '127.0.0.1', cause: 'tls', retryable: false }],
    ['HTTP 503', `http://127.0.0.1:${port}/busy.jpg`, { host: '127.0.0.1', cause: 'http_status', retryable: true, code: 503 }],
  ];

  it('import url', async () => {
    for (const [what, url, details] of cases()) {
      const r = await c.call('svc_asset_import', 'import', { url });
      expect(r.error, what).toMatchObject({ code: 'fetch_failed', field: 'args.url', details });
      expect(r.error?.message, what).toContain('127.0.0.1');
    }
  });

  it('an unknown host name is a DNS failure', async () => {
    const r = await c.call('svc_asset_import', 'import', { url: 'http://no-such-host.invalid/x.jpg' });
    expect(r.error).toMatchObject({ code: 'fetch_failed', field: 'args.url', details: { host: 'no-such-host.invalid' } });
    expect(r.error?.details?.cause).toMatch(/^dns_/);
  });

  it('what the caller can fix stays invalid_argument (HTTP 404)', async () => {
    const r = await c.call('svc_asset_import', 'import', { url: `http://127.0.0.1:${port}/missing.jpg` });
    expect(r.error).toMatchObject({ code: 'invalid_argument', field: 'args.url' });
  });

  it('asset_generate reference_images and mask_url name their own field', async () => {
    const [, url, details] = cases()[0]!;
    const ref = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'x',
      style: 'photography',
      purpose: 'product_composite',
      reference_images: [ownUrl, url],
    });
    expect(ref.error).toMatchObject({ code: 'fetch_failed', field: 'args.reference_images[1]', details });
    const mask = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'x',
      style: 'photography',
      purpose: 'product_composite',
      reference_images: [ownUrl],
      mask_url: url,
    });
    expect(mask.error).toMatchObject({ code: 'fetch_failed', field: 'args.mask_url', details });
  });
});

describe('a port already in use', () => {
  it('prints one line naming the port and exits 2, without a stack trace', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-port-'));
    try {
      const child = spawnCli(['serve'], {
        ATELIER_DATA_DIR: dataDir,
        ATELIER_HOST: '127.0.0.1',
        ATELIER_PORT: String(port),
        ATELIER_ENRICHMENT: '0',
      });
      const { code, stderr } = await child.exited;
      expect(code).toBe(2);
      const plain = stderr.split('\n').filter((l) => l.trim() && !l.startsWith('{'));
      expect(plain).toEqual([
        `atelier: port ${port} on 127.0.0.1 is already in use: stop the other server or pass --port / ATELIER_PORT (0 = any free port)`,
      ]);
      expect(stderr).not.toMatch(/^\s+at /m);
    } finally {
      await new Promise((r) => taken.close(r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
