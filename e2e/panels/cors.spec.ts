import { expect, test, type Page } from '@playwright/test';
import { createLogger } from '../../server/log.ts';
import { startHttp } from '../../server/mcp/http.ts';
import { startTestServer } from '../mcp/harness.ts';
import { startHostServers } from './host-server.ts';

/**
 * A real cross-origin request from a browser page (as a web MCP Apps host such as ext-apps' basic-host
 * makes): Chromium sends the CORS preflight for `Authorization` + JSON, then the POST, and reads the
 * exposed `Mcp-Session-Id`. Allowed only for origins in ATELIER_CORS_ORIGINS; off by default.
 */
async function initializeFrom(
  page: Page,
  mcpUrl: string,
  apiKey: string,
): Promise<{ ok: true; status: number; session: string | null; listed: number } | { ok: false; error: string }> {
  return page.evaluate(
    async ([url, key]) => {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      };
      try {
        const init = await fetch(url, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser-host', version: '0' } },
          }),
        });
        await init.text();
        const session = init.headers.get('mcp-session-id');
        if (!session) return { ok: true as const, status: init.status, session, listed: 0 };
        const h2 = { ...headers, 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-06-18' };
        await fetch(url, { method: 'POST', headers: h2, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
        const list = await fetch(url, {
          method: 'POST',
          headers: h2,
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
        });
        const text = await list.text();
        const json = JSON.parse(
          text.includes('data:')
            ? text
                .split('\n')
                .find((l) => l.startsWith('data:'))!
                .slice(5)
            : text,
        ) as { result?: { tools?: unknown[] } };
        return { ok: true as const, status: init.status, session, listed: json.result?.tools?.length ?? 0 };
      } catch (e) {
        return { ok: false as const, error: String(e) };
      }
    },
    [mcpUrl, apiKey] as const,
  );
}

test('CORS: a configured origin reaches /mcp from the browser (preflight, exposed Mcp-Session-Id); other origins and the default config are refused', async ({
  page,
}) => {
  const hosts = await startHostServers();
  const hostOrigin = new URL(hosts.hostUrl).origin;
  const otherOrigin = new URL(hosts.sandboxUrl).origin;
  const allowed = await startTestServer({ env: { ATELIER_CORS_ORIGINS: `${hostOrigin}, https://example.test` } });
  const closed = await startTestServer();
  const log = createLogger('silent');
  const a = await startHttp(allowed.app, log, { host: '127.0.0.1', port: 0, mcp: true });
  const b = await startHttp(closed.app, log, { host: '127.0.0.1', port: 0, mcp: true });
  try {
    await page.goto(hosts.hostUrl);
    const ok = await initializeFrom(page, a.mcpUrl, allowed.tenant.api_key);
    expect(ok).toMatchObject({ ok: true, status: 200, session: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect((ok as { listed: number }).listed).toBeGreaterThan(5);

    // The same request to a server without ATELIER_CORS_ORIGINS: the browser refuses it.
    expect(await initializeFrom(page, b.mcpUrl, closed.tenant.api_key)).toMatchObject({
      ok: false,
      error: expect.stringContaining('Failed to fetch'),
    });

    // An origin that is not listed is refused by the configured server too.
    await page.goto(`${otherOrigin}/blank`); // any page of another origin (a 404 is enough)
    expect(await initializeFrom(page, a.mcpUrl, allowed.tenant.api_key)).toMatchObject({
      ok: false,
      error: expect.stringContaining('Failed to fetch'),
    });
  } finally {
    await a.close();
    await b.close();
    await allowed.close();
    await closed.close();
    await hosts.close();
  }
});
