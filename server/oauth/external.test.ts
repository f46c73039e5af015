import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log.ts';
import { discoverIssuer, discoveryUrls, readClaims } from './external.ts';

const cfg = { tenantClaim: 'https://atelier.test/tenant', workspaceClaim: 'ws' };

describe('readClaims (external access tokens → tenant, workspaces, scopes)', () => {
  it('reads the tenant id, a workspace array (lowercased) and scope plus scp', () => {
    expect(
      readClaims({ sub: 'u1', 'https://atelier.test/tenant': 't1', ws: ['W1', 'w2'], scope: 'mcp openid', scp: ['extra'] }, cfg),
    ).toEqual({
      ok: true,
      subject: 'u1',
      tenantId: 't1',
      workspaceIds: ['w1', 'w2'],
      scopes: ['mcp', 'openid', 'extra'],
    });
  });

  it('takes a space-separated workspace string, and no workspace claim configured as every workspace (null)', () => {
    expect(readClaims({ sub: 'u', 'https://atelier.test/tenant': 't', ws: ' a  b ' }, cfg)).toMatchObject({
      ok: true,
      workspaceIds: ['a', 'b'],
    });
    expect(readClaims({ sub: 'u', 'https://atelier.test/tenant': 't' }, { ...cfg, workspaceClaim: null })).toMatchObject({
      ok: true,
      workspaceIds: null,
      scopes: [],
    });
  });

  it('refuses a missing or non-string tenant and a workspace claim that is not a list of strings, naming the claim', () => {
    expect(readClaims({ sub: 'u', ws: [] }, cfg)).toEqual({ ok: false, reason: 'claim https://atelier.test/tenant is not a tenant id' });
    expect(readClaims({ sub: 'u', 'https://atelier.test/tenant': 7, ws: [] }, cfg)).toMatchObject({ ok: false });
    for (const ws of [undefined, 3, ['a', 1], { a: 1 }])
      expect(readClaims({ sub: 'u', 'https://atelier.test/tenant': 't', ws }, cfg)).toEqual({
        ok: false,
        reason: 'claim ws is not a list of workspace ids',
      });
  });
});

describe('discoverIssuer (RFC 8414 / OpenID Connect Discovery)', () => {
  let server: Server;
  let origin = '';
  /** path → [status, body]; the test server answers 404 for anything else */
  const routes = new Map<string, [number, unknown]>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const hit = routes.get(req.url ?? '');
      res.writeHead(hit?.[0] ?? 404, { 'content-type': 'application/json' }).end(JSON.stringify(hit?.[1] ?? {}));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const log = createLogger('silent');
  const fast = { log, attempts: 2, firstWaitMs: 1 };

  it('tries the RFC 8414 inserted URL, then OIDC appended and inserted', () => {
    expect(discoveryUrls('https://idp.example/realms/a/')).toEqual([
      'https://idp.example/.well-known/oauth-authorization-server/realms/a',
      'https://idp.example/realms/a/.well-known/openid-configuration',
      'https://idp.example/.well-known/openid-configuration/realms/a',
    ]);
    expect(discoveryUrls('https://tenant.auth0.example/')).toHaveLength(2);
  });

  it('finds the OIDC document of an issuer at a path (Keycloak shape)', async () => {
    const issuer = `${origin}/realms/one`;
    routes.set('/realms/one/.well-known/openid-configuration', [200, { issuer, jwks_uri: `${issuer}/certs` }]);
    expect(await discoverIssuer(issuer, fast)).toEqual({ issuer, jwks_uri: `${issuer}/certs` });
  });

  it('refuses a document naming another issuer, or an http jwks_uri off loopback', async () => {
    const issuer = `${origin}/realms/two`;
    routes.set('/.well-known/oauth-authorization-server/realms/two', [200, { issuer: `${issuer}/`, jwks_uri: `${issuer}/certs` }]);
    await expect(discoverIssuer(issuer, fast)).rejects.toThrow(/names the issuer .*\/realms\/two\/; they must be identical/);
    const three = `${origin}/realms/three`;
    routes.set('/.well-known/oauth-authorization-server/realms/three', [200, { issuer: three, jwks_uri: 'http://idp.example/certs' }]);
    await expect(discoverIssuer(three, fast)).rejects.toThrow(/jwks_uri http:\/\/idp.example\/certs must be https/);
  });

  it('gives up after its attempts, naming the issuer and the last answer', async () => {
    await expect(discoverIssuer(`${origin}/realms/none`, fast)).rejects.toThrow(
      /ATELIER_OAUTH_EXTERNAL_ISSUER=.*\/realms\/none: no metadata document after 2 attempts \(last: .*HTTP 404\)/,
    );
  });
});
