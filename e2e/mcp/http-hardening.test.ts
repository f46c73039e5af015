import http from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type HttpHandle } from '../../server/mcp/http.ts';
import { demoFile, REPO_ROOT, startTestServer, type TestServer } from './harness.ts';

/** The answer to one raw HTTP/1.1 request (node:http, so Host and Content-Encoding are exactly as given). */
function request(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: o.method ?? 'GET', headers: o.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    // the server may answer and close before it has read the body: that is the point of some tests
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)));
    req.end(o.body);
  });
}

/** A gzip body that inflates to `inflatedBytes` of one JSON-RPC request, built in 1 MiB steps (never whole in memory). */
async function gzipBomb(inflatedBytes: number): Promise<Buffer> {
  const gz = zlib.createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((r) => gz.on('end', r));
  gz.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"');
  const mib = Buffer.alloc(1024 * 1024, 'a');
  for (let n = 0; n < inflatedBytes; n += mib.length) {
    if (!gz.write(mib)) await new Promise((r) => gz.once('drain', r));
  }
  gz.end('"}}');
  await done;
  return Buffer.concat(out);
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

/** Lines a pino logger wrote, parsed. */
function capturingLogger(): { log: pino.Logger; lines: Record<string, unknown>[]; raw: string[] } {
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw.push(chunk.toString('utf8'));
      cb();
    },
  });
  const log = pino({ level: 'info' }, sink);
  return {
    log,
    raw,
    get lines() {
      return raw.flatMap((r) => r.split('\n').filter(Boolean)).map((l) => JSON.parse(l) as Record<string, unknown>);
    },
  };
}

describe('HTTP listener hardening (issue 36)', () => {
  let srv: TestServer;
  let h: HttpHandle;
  const logs = capturingLogger();
  beforeAll(async () => {
    srv = await startTestServer({
      env: { ATELIER_ENRICHMENT: '0', ATELIER_REQUEST_TIMEOUT_MS: '1500', ATELIER_HEADERS_TIMEOUT_MS: '1000' },
    });
    h = await startHttp(srv.app, logs.log, { host: '127.0.0.1', port: 0, mcp: true });
  });
  afterAll(async () => {
    await h.close();
    await srv.close();
  });

  it('refuses 24 parallel unauthenticated gzip bombs (70 MB inflated) before reading them: RSS stays within 100 MB of idle', async () => {
    const bomb = await gzipBomb(70 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(200_000);
    const idle = process.memoryUsage().rss;
    let peak = idle;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      const answers = await Promise.all(
        Array.from({ length: 24 }, () =>
          request(h.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, 'content-encoding': 'gzip' }, body: bomb }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(24).fill(401));
    } finally {
      clearInterval(sample);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect((peak - idle) / 1024 / 1024).toBeLessThan(100);
  });

  it('caps an authenticated body after inflation at ATELIER_MAX_REQUEST_BYTES (1 MiB) and says how to send more', async () => {
    const bomb = await gzipBomb(5 * 1024 * 1024);
    const r = await request(h.mcpUrl, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'content-encoding': 'gzip', authorization: `Bearer ${srv.tenant.api_key}` },
      body: bomb,
    });
    expect(r.status).toBe(413);
    const body = JSON.parse(r.body) as { error: { message: string } };
    expect(body.error.message).toContain('limit of 1048576 bytes');
    expect(body.error.message).toContain('chunked upload');
  });

  it('refuses a body nested 100,000 levels deep with -32600 (it was an internal error), and still serves', async () => {
    const auth = { ...MCP_HEADERS, authorization: `Bearer ${srv.tenant.api_key}` };
    for (const body of [
      '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000),
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":${'['.repeat(200)}${']'.repeat(200)}}`,
    ]) {
      const r = await request(h.mcpUrl, { method: 'POST', headers: auth, body });
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32600, message: expect.stringContaining('deeper than 128 levels') },
      });
    }
    expect((await request(`${h.url}/healthz`, {})).status).toBe(200);
  });

  it('closes an authenticated request whose announced body never arrives (ATELIER_REQUEST_TIMEOUT_MS)', { timeout: 30_000 }, async () => {
    const u = new URL(h.mcpUrl);
    const sock = net.connect(Number(u.port), u.hostname);
    const closed = new Promise<string>((resolve) => {
      let got = '';
      sock.on('data', (d: Buffer) => (got += d.toString('utf8')));
      sock.on('close', () => resolve(got));
      sock.on('error', () => undefined);
    });
    sock.write(
      `POST /mcp HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${srv.tenant.api_key}\r\nContent-Type: application/json\r\nContent-Length: 70000000\r\n\r\n{`,
    );
    // Node answers 408 and closes the connection once the request timeout passes (default 300 s before)
    expect(await closed).toMatch(/^HTTP\/1\.1 408/);
  });

  it('answers errors as JSON without a stack or an absolute path, whatever NODE_ENV says', async () => {
    expect(process.env.NODE_ENV).not.toBe('production');
    const key = { authorization: `Bearer ${srv.tenant.api_key}` };
    const probes = [
      await request(h.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, ...key, 'content-encoding': 'foo' }, body: INIT }),
      await request(h.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, 'content-encoding': 'foo' }, body: INIT }),
      await request(h.mcpUrl, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...key, 'content-type': 'application/json; charset=latin-9' },
        body: INIT,
      }),
      await request(h.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, ...key }, body: '{"jsonrpc":' }),
      await request(`${h.url}/a/%E0%A4%A.svg`, {}),
      await request(`${h.url}/cdn/%E0%A4%A.svg`, {}),
      await request(`${h.url}/nowhere/%E0%A4%A`, {}),
    ];
    expect(probes.map((p) => p.status)).toEqual([415, 401, 415, 400, 400, 404, 404]);
    for (const p of probes) {
      expect(p.headers['content-type']).toMatch(/^application\/json/);
      expect(p.body).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\/work\/|\/home\/|\/tmp\//);
      expect(p.body).not.toContain(REPO_ROOT);
      expect(p.body).not.toMatch(/URIError|Error:/);
    }
  });

  it('sends security headers on every route and keeps the blob route’s sandbox CSP', async () => {
    const c = await srv.connect();
    const imp = await c.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/notocactus_minimus.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'cactus.jpg',
    });
    expect(imp.error).toBeUndefined();
    const blobUrl = new URL(new URL(imp.structured.url as string).pathname, h.url).href;
    const answers = {
      healthz: await request(`${h.url}/healthz`, {}),
      mcp401: await request(h.mcpUrl, { method: 'POST', headers: MCP_HEADERS, body: INIT }),
      notFound: await request(`${h.url}/nowhere`, {}),
      error: await request(`${h.url}/a/%E0%A4%A.svg`, {}),
      blob: await request(blobUrl, {}),
    };
    for (const [name, a] of Object.entries(answers)) {
      expect({ name, nosniff: a.headers['x-content-type-options'] }).toEqual({ name, nosniff: 'nosniff' });
      expect({ name, referrer: a.headers['referrer-policy'] }).toEqual({ name, referrer: 'no-referrer' });
      expect({ name, hsts: a.headers['strict-transport-security'] }).toMatchObject({ name, hsts: expect.stringContaining('max-age=') });
      expect({ name, frame: a.headers['x-frame-options'] }).toEqual({ name, frame: 'DENY' });
    }
    for (const name of ['healthz', 'mcp401', 'notFound', 'error'] as const)
      expect(answers[name].headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(answers.blob.status).toBe(200);
    expect(answers.blob.headers['content-security-policy']).toBe(
      "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox",
    );
    // other origins embed the images
    expect(answers.blob.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('refuses JSON-RPC batches on protocol versions without them (2025-06-18 and later)', async () => {
    const key = { authorization: `Bearer ${srv.tenant.api_key}` };
    const init = await request(h.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, ...key }, body: INIT });
    expect(init.status).toBe(200);
    const session = { 'mcp-session-id': String(init.headers['mcp-session-id']) };
    const batch = (n: number) =>
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: 10 + i, method: 'tools/list' })));
    const now = await request(h.mcpUrl, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...key, ...session, 'mcp-protocol-version': '2025-06-18' },
      body: batch(100),
    });
    expect(now.status).toBe(400);
    expect(JSON.parse(now.body)).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32600, message: expect.stringContaining('2025-06-18') },
      id: null,
    });
    // a batch initialize asking for a version without batches is refused the same way
    const initBatch = await request(h.mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, ...key }, body: `[${INIT}]` });
    expect(initBatch.status).toBe(400);
  });

  it('logs failed authentications without the presented key', async () => {
    await request(h.mcpUrl, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: 'Bearer atl_not-a-real-secret-1234' },
      body: INIT,
    });
    await request(h.mcpUrl, { method: 'POST', headers: MCP_HEADERS, body: INIT });
    const failed = logs.lines.filter((l) => l.msg === 'authentication failed');
    expect(failed.map((l) => l.reason)).toEqual(expect.arrayContaining(['unknown_key', 'missing_authorization']));
    expect(failed[0]).toMatchObject({ remote: expect.any(String), path: '/mcp' });
    expect(logs.raw.join('')).not.toContain('atl_not-a-real-secret-1234');
  });

  it('shows /healthz identifiers only to an authenticated caller', async () => {
    const anon = JSON.parse((await request(`${h.url}/healthz`, {})).body) as Record<string, unknown>;
    expect(anon).toEqual({ ok: true, service: 'atelier' });
    const wrong = JSON.parse((await request(`${h.url}/healthz`, { headers: { authorization: 'Bearer atl_wrong' } })).body) as Record<
      string,
      unknown
    >;
    expect(wrong).toEqual({ ok: true, service: 'atelier' });
    const authed = JSON.parse(
      (await request(`${h.url}/healthz`, { headers: { authorization: `Bearer ${srv.tenant.api_key}` } })).body,
    ) as Record<string, unknown>;
    expect(authed).toEqual({ ok: true, service: 'atelier', data_id: srv.app.dataId, instance: null });
  });
});

describe('listener limits and bind rules (issue 36)', () => {
  it('closes connections beyond ATELIER_MAX_CONNECTIONS on arrival', async () => {
    const srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_MAX_CONNECTIONS: '2' } });
    const h = await srv.listen();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    const u = new URL(h.url);
    const sockets: net.Socket[] = [];
    try {
      // two kept-alive connections, each with an answered request (so the server has counted them)
      const held = await Promise.all(
        [0, 1].map(
          () =>
            new Promise<number>((resolve, reject) => {
              const s = net.connect(Number(u.port), u.hostname);
              sockets.push(s);
              s.on('error', reject);
              s.once('data', (d: Buffer) => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(d.toString('utf8'))?.[1])));
              s.write(`GET /healthz HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
            }),
        ),
      );
      expect(held).toEqual([200, 200]);
      const third = await new Promise<string>((resolve) => {
        const s = net.connect(Number(u.port), u.hostname);
        let got = '';
        s.on('data', (d: Buffer) => (got += d.toString('utf8')));
        s.on('error', () => undefined);
        s.on('close', () => resolve(got));
        s.write(`GET /healthz HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
      });
      expect(third).toBe('');
    } finally {
      for (const s of sockets) s.destroy();
      agent.destroy();
      await srv.close();
    }
  });

  it('refuses to start /mcp on a non-loopback address without ATELIER_ALLOWED_HOSTS, and checks Host on /mcp and /oauth when it has them', async () => {
    const srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    const srv2 = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_ALLOWED_HOSTS: 'atelier.test' } });
    const silent = pino({ level: 'silent' });
    try {
      await expect(startHttp(srv.app, silent, { host: '0.0.0.0', port: 0, mcp: true })).rejects.toThrow(/ATELIER_ALLOWED_HOSTS/);
      const h = await startHttp(srv2.app, silent, { host: '0.0.0.0', port: 0, mcp: true });
      try {
        const headers = { ...MCP_HEADERS, authorization: `Bearer ${srv2.tenant.api_key}` };
        const evil = await request(h.mcpUrl, { method: 'POST', headers: { ...headers, host: 'evil.example' }, body: INIT });
        expect(evil.status).toBe(403);
        const ok = await request(h.mcpUrl, { method: 'POST', headers: { ...headers, host: 'atelier.test:3333' }, body: INIT });
        expect(ok.status).toBe(200);
        // the OAuth sign-in pages and metadata (cookies) are guarded like /mcp; the CDN and /healthz are not
        const origin = new URL(h.mcpUrl).origin;
        for (const p of ['/oauth/auth', '/.well-known/oauth-authorization-server/oauth', '/.well-known/oauth-protected-resource/mcp'])
          expect((await request(`${origin}${p}`, { headers: { host: 'evil.example' } })).status, p).toBe(403);
        const meta = await request(`${origin}/.well-known/oauth-authorization-server/oauth`, { headers: { host: 'atelier.test' } });
        expect(meta.status).toBe(200);
        expect((await request(`${origin}/healthz`, { headers: { host: 'evil.example' } })).status).toBe(200);
      } finally {
        await h.close();
      }
    } finally {
      await srv.close();
      await srv2.close();
    }
  });
});
