import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from '../mcp/harness.ts';

/** Where global-setup.ts builds the test host page and the sandbox proxy. */
export const HOST_DIST = path.join(REPO_ROOT, 'dist', 'e2e-host');

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** `_meta.ui.csp` of a UI resource (MCP Apps spec 2026-01-26 `McpUiResourceCsp`). */
export interface ResourceCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** Keep only origins that cannot break out of a CSP directive (no spaces, quotes, semicolons). */
function clean(domains: unknown): string[] {
  return Array.isArray(domains) ? domains.filter((d): d is string => typeof d === 'string' && /^[a-z0-9*.:/[\]-]+$/i.test(d)) : [];
}

/**
 * The sandbox's Content-Security-Policy: the spec's mandatory restrictive default (spec 2026-01-26 L275,
 * research note §1.4). With `honourDomains` the declared `_meta.ui.csp` domains are added; by default
 * they are ignored, as some hosts do (ext-apps#761), so panels must work with `data:` previews alone.
 */
export function sandboxCsp(csp: ResourceCsp, honourDomains: boolean): string {
  const res = honourDomains ? clean(csp.resourceDomains).join(' ') : '';
  const connect = honourDomains ? clean(csp.connectDomains).join(' ') : '';
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${res}`.trim(),
    `style-src 'self' 'unsafe-inline' ${res}`.trim(),
    `img-src 'self' data: ${res}`.trim(),
    `font-src 'self' ${res}`.trim(),
    `media-src 'self' data: ${res}`.trim(),
    `connect-src ${connect || "'none'"}`,
    "frame-src 'none'",
    "base-uri 'self'",
    "object-src 'none'",
  ].join('; ');
}

function serve(role: 'host' | 'sandbox', honourDomains: boolean): http.Server {
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    let rel = decodeURIComponent(url.pathname).replace(/^\/+/, '') || `${role}.html`;
    if (role === 'sandbox' && rel.endsWith('.html') && rel !== 'sandbox.html') rel = 'forbidden';
    if (role === 'host' && rel === 'sandbox.html') rel = 'forbidden';
    const file = path.join(HOST_DIST, rel);
    if (!file.startsWith(HOST_DIST + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    const headers: Record<string, string> = {
      'content-type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    };
    if (rel === 'sandbox.html') {
      let csp: ResourceCsp;
      try {
        csp = JSON.parse(url.searchParams.get('csp') ?? '{}') as ResourceCsp;
      } catch {
        csp = {};
      }
      headers['content-security-policy'] = sandboxCsp(csp, honourDomains);
    }
    res.writeHead(200, headers);
    fs.createReadStream(file).pipe(res);
  });
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The two same-site origins of the test host: `http://localhost:<A>` (host page) and `http://localhost:<B>` (sandbox). */
export interface HostServers {
  hostUrl: string;
  sandboxUrl: string;
  close(): Promise<void>;
}

export async function startHostServers(opts: { honourDomains?: boolean } = {}): Promise<HostServers> {
  if (!fs.existsSync(path.join(HOST_DIST, 'host.html')))
    throw new Error(`test host not built: ${HOST_DIST}/host.html missing (Playwright globalSetup builds it)`);
  const host = serve('host', false);
  const sandbox = serve('sandbox', opts.honourDomains ?? false);
  const [a, b] = [await listen(host), await listen(sandbox)];
  return {
    hostUrl: `http://localhost:${a}/host.html`,
    sandboxUrl: `http://localhost:${b}/sandbox.html`,
    async close() {
      await Promise.all(
        [host, sandbox].map(
          (s) =>
            new Promise<void>((r) => {
              s.closeAllConnections();
              s.close(() => r());
            }),
        ),
      );
    },
  };
}
