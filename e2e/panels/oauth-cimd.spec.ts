import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { expect, test } from '@playwright/test';
import type { HttpHandle } from '../../server/mcp/http.ts';
import { startTestServer, type TestServer } from '../mcp/harness.ts';
import { authorizeUrl, b64url, discover, mcpWith, signInAndConsent, token, type Discovered } from './oauth-host.ts';

/**
 * Issue 37 item 2: a host that names itself by a Client ID Metadata Document URL (draft-02) instead of
 * registering. The document is served over real TLS on loopback with a certificate made here (openssl),
 * trusted by this process only. Atelier fetches it with the URL import's address rule: allowed when
 * ATELIER_ALLOW_PRIVATE_URLS is on (as in tests), refused without a request otherwise.
 */
test.describe('OAuth with a Client ID Metadata Document (issue 37)', () => {
  const redirectUri = 'http://127.0.0.1:9/callback';
  let docServer: https.Server;
  let clientUrl: string;
  let fetches = 0;
  let srv: TestServer;
  let http: HttpHandle;
  let d: Discovered;
  let defaultCas: string[];

  test.beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-cimd-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' }); // prettier-ignore
    const cert = fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    defaultCas = tls.getCACertificates('default');
    tls.setDefaultCACertificates([...defaultCas, cert]);
    docServer = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert }, (req, res) => {
      if (req.url !== '/client.json') return void res.writeHead(404).end();
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
      res.end(
        JSON.stringify({
          client_id: clientUrl,
          client_name: 'OAuth test host',
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        }),
      );
    });
    await new Promise<void>((resolve) => docServer.listen(0, '127.0.0.1', resolve));
    clientUrl = `https://127.0.0.1:${(docServer.address() as AddressInfo).port}/client.json`;
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_OCR: '0' } });
    http = await srv.listen();
    d = await discover(http.mcpUrl);
  });
  test.afterAll(async () => {
    await srv?.close();
    docServer?.close();
    if (defaultCas) tls.setDefaultCACertificates(defaultCas);
  });

  test('the metadata document names the client: sign-in, consent, PKCE exchange and a search with no registration', async ({ page }) => {
    const verifier = b64url(randomBytes(32));
    const challenge = b64url(createHash('sha256').update(verifier).digest());
    const back = await signInAndConsent(page, authorizeUrl(d, clientUrl, redirectUri, challenge, 'c'), redirectUri, srv.tenant.api_key, [
      'Test tenant',
    ]);
    expect(fetches).toBeGreaterThan(0);
    const t = await token(d, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: redirectUri,
      client_id: clientUrl,
      code_verifier: verifier,
    });
    expect(t.status, JSON.stringify(t.json)).toBe(200);
    const mcp = await mcpWith(http.mcpUrl, t.json.access_token!);
    const found = await mcp.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, query: 'anything' });
    expect(found.isError, found.text).toBe(false);
    await mcp.close();
    // a redirect URI the document does not list is refused, without redirecting
    const q = new URL(authorizeUrl(d, clientUrl, 'http://127.0.0.1:9/elsewhere', challenge, 'c'));
    const res = await fetch(q, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });

  test('without ATELIER_ALLOW_PRIVATE_URLS a document on a loopback address is refused and never fetched', async () => {
    const strict = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_OCR: '0', ATELIER_ALLOW_PRIVATE_URLS: '0' } });
    try {
      const h = await strict.listen();
      const sd = await discover(h.mcpUrl);
      const before = fetches;
      const res = await fetch(authorizeUrl(sd, clientUrl, redirectUri, b64url(randomBytes(32)), 'c'), { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
      expect(fetches).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
