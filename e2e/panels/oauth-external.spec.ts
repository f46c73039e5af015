import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect, test } from '@playwright/test';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, importJWK, type JWTPayload } from 'jose';
import { pino } from 'pino';
import { startHttp, type HttpHandle } from '../../server/mcp/http.ts';
import { createApiKey, createTenant, createWorkspace, type TenantBundle } from '../../server/tenancy/admin.ts';
import { demoFile, startTestServer, type TestServer } from '../mcp/harness.ts';
import { freePort } from '../mcp/processes.ts';
import { startExternalIdp, discoverExternal, signInAtIdp, type ExternalIdp } from './oauth-external-host.ts';
import { authorizeUrl, b64url, mcpWith, register, token } from './oauth-host.ts';

/**
 * Issue 37 item 4: Atelier with an external identity provider instead of its built-in authorization server
 * (ATELIER_OAUTH_EXTERNAL_ISSUER). The IdP is a separate process (e2e/fixtures/external-idp.ts, oidc-provider
 * with its own RS256 key, issuer at a Keycloak-like path). A host, in a real browser: discovery from the 401,
 * registration at the IdP, sign-in, consent, the code exchange with PKCE, an MCP client searching with the
 * token, refresh; then forged tokens (signed with the IdP's own key, or another) are refused with
 * 401 invalid_token / 403 insufficient_scope and change nothing.
 */

const TENANT_CLAIM = 'https://atelier.test/tenant';
const WORKSPACES_CLAIM = 'https://atelier.test/workspaces';
const image = (file: string, filename: string) => ({ data: demoFile(file).toString('base64'), mime_type: 'image/jpeg', filename });

test.describe('OAuth with an external identity provider (issue 37 item 4)', () => {
  let srv: TestServer;
  let http: HttpHandle;
  let idp: ExternalIdp;
  let other: TenantBundle;
  let workspaceB: string;
  const logLines: string[] = [];
  const redirectUri = 'http://127.0.0.1:9/callback';

  test.beforeAll(async () => {
    const [atelierPort, idpPort] = [await freePort(), await freePort()];
    srv = await startTestServer({
      env: {
        ATELIER_ENRICHMENT: '0',
        ATELIER_OAUTH_EXTERNAL_ISSUER: `http://127.0.0.1:${idpPort}/realms/atelier`,
        ATELIER_OAUTH_TENANT_CLAIM: TENANT_CLAIM,
        ATELIER_OAUTH_WORKSPACE_CLAIM: WORKSPACES_CLAIM,
        ATELIER_OAUTH_REQUIRED_SCOPE: 'mcp',
      },
    });
    const tenancy = srv.app.library.tenancy;
    workspaceB = (await createWorkspace(tenancy, srv.tenant.tenant_id, 'Workspace B')).workspace_id;
    other = await createTenant(tenancy, 'Other tenant');
    idp = await startExternalIdp({
      port: idpPort,
      resource: `http://127.0.0.1:${atelierPort}/mcp`,
      // ann's IdP account acts for the test tenant and reaches its first workspace only
      accounts: [
        {
          login: 'ann',
          password: 'ann secret password',
          claims: { [TENANT_CLAIM]: srv.tenant.tenant_id, [WORKSPACES_CLAIM]: [srv.tenant.workspace_id] },
        },
      ],
    });
    // the listener's log, kept to check that refusals are logged and tokens are not
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (logLines.push(chunk.toString()), done()) });
    http = await startHttp(srv.app, pino({ level: 'info' }, sink), { host: '127.0.0.1', port: atelierPort, mcp: true });
  });
  test.afterAll(async () => {
    await http?.close();
    await idp?.close();
    await srv?.close();
  });

  /** The tenant's storage in use, bytes, as its API key sees it (`svc_discover scope`): what a refused import must leave alone. */
  const usedBytes = async (apiKey: string): Promise<number> =>
    ((await (await srv.connect(apiKey)).call('svc_discover', 'scope', {})).structured.storage as { used_bytes: number }).used_bytes;

  test('discovery, registration, sign-in, consent, PKCE exchange at the IdP; search with its token; refresh', async ({ page }) => {
    const d = await discoverExternal(http.mcpUrl);
    expect(d.issuer).toBe(idp.issuer);
    expect(d.resource_scopes).toEqual(['mcp']);
    // the built-in authorization server is not mounted
    for (const p of ['/.well-known/oauth-authorization-server/oauth', '/oauth/.well-known/openid-configuration', '/oauth/auth'])
      expect((await fetch(`${http.url}${p}`)).status, p).toBe(404);

    const clientName = 'External test host';
    const clientId = await register(d, redirectUri, clientName);
    const verifier = b64url(randomBytes(32));
    const challenge = b64url(createHash('sha256').update(verifier).digest());
    const state = b64url(randomBytes(12));
    const back = await signInAtIdp(page, authorizeUrl(d, clientId, redirectUri, challenge, state), redirectUri, {
      login: 'ann',
      password: 'ann secret password',
      clientName,
    });
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(idp.issuer);
    const code = back.searchParams.get('code')!;
    const exchange = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId };
    expect((await token(d, { ...exchange, code_verifier: b64url(randomBytes(32)) })).json.error).toBe('invalid_grant');
    const ok = await token(d, { ...exchange, code_verifier: verifier, resource: d.resource });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.refresh_token).toBeTruthy();
    expect(decodeJwt(ok.json.access_token!)).toMatchObject({
      iss: idp.issuer,
      aud: d.resource,
      sub: 'ann',
      scope: 'mcp',
      [TENANT_CLAIM]: srv.tenant.tenant_id,
    });

    // the MCP client with the IdP's token reaches the workspace its claim lists, and searches there
    const mcp = await mcpWith(http.mcpUrl, ok.json.access_token!);
    const scope = await mcp.call('svc_discover', 'scope', {});
    expect((scope.structured.workspaces as { id: string }[]).map((w) => w.id)).toEqual([srv.tenant.workspace_id]);
    expect((await mcp.call('svc_asset_import', 'import', image('images/nature/tanners_ridge.jpg', 'ridge.jpg'))).isError).toBe(false);
    const themeA = (scope.structured.defaults as { theme_id: string }).theme_id;
    const found = await mcp.call('svc_asset_library', 'search', { theme_id: themeA, query: 'ridge' });
    expect(found.isError, found.text).toBe(false);
    expect(found.text).toContain('ridge.jpg');

    // workspace B is not in the token's claim: refused exactly as for an API key restricted to workspace A, nothing lands in B
    const before = await usedBytes(srv.tenant.api_key);
    const restricted = await createApiKey(srv.app.library.tenancy, srv.tenant.tenant_id, { workspaceIds: [srv.tenant.workspace_id] });
    const intoB = { ...image('images/nature/tanners_ridge.jpg', 'b.jpg'), workspace_id: workspaceB };
    const byToken = await mcp.call('svc_asset_import', 'import', intoB);
    const byKey = await (await srv.connect(restricted.api_key)).call('svc_asset_import', 'import', intoB);
    expect(byToken.error).toMatchObject({ code: 'not_found', field: 'args.workspace_id' });
    expect(byToken.error).toEqual(byKey.error);
    expect(await usedBytes(srv.tenant.api_key)).toBe(before);

    // refresh at the IdP: a new access token (rotated refresh token) that works on /mcp
    const refreshed = await token(d, { grant_type: 'refresh_token', refresh_token: ok.json.refresh_token!, client_id: clientId });
    expect(refreshed.status, JSON.stringify(refreshed.json)).toBe(200);
    expect(refreshed.json.refresh_token).not.toBe(ok.json.refresh_token);
    expect(refreshed.json.access_token).not.toBe(ok.json.access_token);
    const mcp2 = await mcpWith(http.mcpUrl, refreshed.json.access_token!);
    const again = await mcp2.call('svc_asset_library', 'search', { theme_id: themeA, query: 'ridge' });
    expect(again.text).toContain('ridge.jpg');
    await mcp.close().catch(() => undefined);
    await mcp2.close().catch(() => undefined);
  });

  test('forged and misdirected tokens: 401 invalid_token or 403 insufficient_scope, nothing changed', async () => {
    const key = await importJWK(idp.signingJwk, 'RS256');
    const now = Math.floor(Date.now() / 1000);
    const base: JWTPayload = {
      iss: idp.issuer,
      aud: `${http.url}/mcp`,
      sub: 'ann',
      scope: 'mcp',
      iat: now,
      exp: now + 300,
      [TENANT_CLAIM]: srv.tenant.tenant_id,
      [WORKSPACES_CLAIM]: [srv.tenant.workspace_id],
    };
    const sign = (claims: JWTPayload, k = key, kid = idp.signingJwk.kid!) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(k);
    const without = (claim: string): JWTPayload => Object.fromEntries(Object.entries(base).filter(([c]) => c !== claim));

    // the IdP's own key with the right claims works: each case below differs from it in the one thing it names
    const good = await sign(base);
    const mcp = await mcpWith(http.mcpUrl, good);
    expect((await mcp.call('svc_discover', 'scope', {})).isError).toBe(false);
    await mcp.close();

    const rogue = (await generateKeyPair('RS256', { extractable: true })).privateKey;
    const rogueJwk = await exportJWK(rogue);
    const [h, p, sig] = good.split('.');
    const otherTenant = b64url(Buffer.from(JSON.stringify({ ...base, [TENANT_CLAIM]: other.tenant_id })));
    const unauthorized: [string, string][] = [
      ['wrong audience', await sign({ ...base, aud: 'https://other.example/mcp' })],
      ['expired', await sign({ ...base, iat: now - 900, exp: now - 60 })],
      ['not yet valid', await sign({ ...base, nbf: now + 120 })],
      ['wrong issuer', await sign({ ...base, iss: 'https://evil.example/realms/atelier' })],
      ['tampered payload', `${h}.${otherTenant}.${sig}`],
      ['tampered signature', `${h}.${p}.${b64url(Buffer.from(Buffer.from(sig!, 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b))))}`],
      ['unsigned (alg none)', `${b64url(Buffer.from('{"alg":"none"}'))}.${p}.`],
      [
        'HS256 with the public key as the secret',
        await new SignJWT(base).setProtectedHeader({ alg: 'HS256' }).sign(Buffer.from(idp.signingJwk.n!)),
      ],
      ['a key not in the JWKS, same kid', await sign(base, rogue)],
      ['a key not in the JWKS, its own kid', await sign(base, await importJWK({ ...rogueJwk, alg: 'RS256' }, 'RS256'), 'rogue')],
      ['a tenant that does not exist', await sign({ ...base, [TENANT_CLAIM]: randomUUID() })],
      ['no tenant claim', await sign(without(TENANT_CLAIM))],
      ['no workspace claim', await sign(without(WORKSPACES_CLAIM))],
      ['no exp', await sign(without('exp'))],
    ];
    const forbidden: [string, string][] = [
      ['without the required scope', await sign({ ...base, scope: 'openid profile' })],
      ["listing only another tenant's workspace", await sign({ ...base, [WORKSPACES_CLAIM]: [other.workspace_id] })],
    ];
    const before = [await usedBytes(srv.tenant.api_key), await usedBytes(other.api_key)];
    const importWith = (bearer: string) =>
      fetch(http.mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'svc_asset_import',
            arguments: { action: 'import', args: image('images/nature/tanners_ridge.jpg', 'forged.jpg') },
          },
        }),
      });
    for (const [what, jwt] of unauthorized) {
      const res = await importWith(jwt);
      expect(res.status, what).toBe(401);
      expect(res.headers.get('www-authenticate'), what).toContain('error="invalid_token"');
      expect(res.headers.get('www-authenticate'), what).toContain('resource_metadata=');
    }
    for (const [what, jwt] of forbidden) {
      const res = await importWith(jwt);
      expect(res.status, what).toBe(403);
      expect(res.headers.get('www-authenticate'), what).toContain('error="insufficient_scope"');
      expect(res.headers.get('www-authenticate'), what).toContain('scope="mcp"');
    }

    // a valid token of the other tenant: its own workspaces only; the test tenant's workspace is not_found, as for its API key
    const theirs = await mcpWith(
      http.mcpUrl,
      await sign({ ...base, sub: 'bob', [TENANT_CLAIM]: other.tenant_id, [WORKSPACES_CLAIM]: [other.workspace_id] }),
    );
    const cross = await theirs.call('svc_asset_import', 'import', {
      ...image('images/nature/tanners_ridge.jpg', 'x.jpg'),
      workspace_id: srv.tenant.workspace_id,
    });
    expect(cross.error).toMatchObject({ code: 'not_found', field: 'args.workspace_id' });
    await theirs.close();

    expect([await usedBytes(srv.tenant.api_key), await usedBytes(other.api_key)]).toEqual(before);
    // refusals are logged with the reason, never with the token
    const log = logLines.join('');
    for (const reason of [
      'ERR_JWT_EXPIRED',
      'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      'ERR_JWKS_NO_MATCHING_KEY',
      'unknown_tenant',
      'insufficient_scope',
    ])
      expect(log, reason).toContain(reason);
    for (const [, jwt] of [...unauthorized, ...forbidden]) expect(log).not.toContain(jwt.split('.')[2] || jwt.split('.')[1]);
  });
});
