/**
 * Runs the MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, server mode, Streamable HTTP)
 * against a real Atelier HTTP server on a temp data dir. The runner cannot send an API key, so a tiny
 * local proxy adds `Authorization: Bearer <test key>` and forwards everything else untouched (the Host
 * header included, so the DNS-rebinding scenario still reaches our Host validation).
 * Usage: tsx e2e/conformance/run.ts [extra conformance args]; exit code = the runner's.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/log.ts';
import { startHttp } from '../../server/mcp/http.ts';
import { createTenant } from '../../server/tenancy/admin.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-conformance-'));
const log = createLogger('silent');
const app = await buildApp(loadConfig({ ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0', ATELIER_LOG_LEVEL: 'silent' }), log);
app.startWorkers();
const { api_key } = await createTenant(app.library.tenancy, 'Conformance');
const server = await startHttp(app, log, { host: '127.0.0.1', port: 0, mcp: true });
const upstream = new URL(server.url);

const proxy = http.createServer((req, res) => {
  const fwd = http.request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${api_key}` },
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  fwd.on('error', () => res.writeHead(502).end());
  req.pipe(fwd);
});
await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
const port = (proxy.address() as AddressInfo).port;

const bin = path.join(root, 'node_modules', '.bin', 'conformance');
const outDir = path.join(os.tmpdir(), `atelier-conformance-results-${process.pid}`);
const child = spawn(
  bin,
  [
    'server',
    '--url',
    `http://localhost:${port}/mcp`,
    '--expected-failures',
    path.join(root, 'e2e/conformance/baseline.yml'),
    '-o',
    outDir,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
const code: number = await new Promise((r) => child.on('exit', (c) => r(c ?? 1)));
proxy.closeAllConnections();
proxy.close();
await server.close();
await app.close();
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(code);
