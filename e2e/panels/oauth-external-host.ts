import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { REPO_ROOT } from '../mcp/harness.ts';
import type { Discovered } from './oauth-host.ts';

/** The test IdP process (e2e/fixtures/external-idp.ts) and its private signing key, for forging tokens it would sign. */
export interface ExternalIdp {
  issuer: string;
  /** the private RS256 JWK it signs with (kid `idp-1`) */
  signingJwk: JWK;
  close(): Promise<void>;
}

/**
 * Start the test IdP as a separate process on `port`, for the resource `resource` (Atelier's `<url>/mcp`), with
 * these accounts; resolves once it listens. @throws Error with its output when it exits first
 */
export async function startExternalIdp(o: {
  port: number;
  resource: string;
  accounts: { login: string; password: string; claims: Record<string, unknown> }[];
}): Promise<ExternalIdp> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk = { ...(await exportJWK(privateKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' };
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'e2e/fixtures/external-idp.ts')], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      IDP_PORT: String(o.port),
      IDP_RESOURCE: o.resource,
      IDP_SIGNING_JWK: JSON.stringify(signingJwk),
      IDP_ACCOUNTS: JSON.stringify(o.accounts),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const issuer = await new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^ready (\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => reject(new Error(`the test IdP exited (${code}) before it was ready:\n${out}`)));
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return {
    issuer,
    signingJwk,
    async close() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * What a host does from a 401 on `/mcp` to the authorization server's endpoints (MCP authorization,
 * 2025-06-18): the Protected Resource Metadata the challenge names, its first authorization server, and that
 * server's metadata at the URLs MCP clients try in order (RFC 8414 inserted, then OIDC appended and inserted).
 */
export async function discoverExternal(mcpUrl: string): Promise<Discovered & { resource_scopes: string[] | undefined }> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{}',
  });
  expect(res.status).toBe(401);
  const prmUrl = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
  expect(prmUrl).toBeTruthy();
  const prm = (await (await fetch(prmUrl!)).json()) as { resource: string; authorization_servers: string[]; scopes_supported?: string[] };
  expect(prm.resource).toBe(mcpUrl);
  const issuer = prm.authorization_servers[0]!;
  const u = new URL(issuer);
  const p = u.pathname.replace(/\/$/, '');
  for (const url of [
    `${u.origin}/.well-known/oauth-authorization-server${p}`,
    `${u.origin}${p}/.well-known/openid-configuration`,
    `${u.origin}/.well-known/openid-configuration${p}`,
  ]) {
    const meta = await fetch(url);
    if (meta.status !== 200) continue;
    const m = (await meta.json()) as Omit<Discovered, 'resource'> & { code_challenge_methods_supported: string[] };
    expect(m.issuer).toBe(issuer);
    expect(m.code_challenge_methods_supported).toContain('S256');
    return { ...m, resource: prm.resource, resource_scopes: prm.scopes_supported };
  }
  throw new Error(`no metadata for ${issuer}`);
}

/** The browser part at the IdP: a wrong password first (refused), then sign-in and consent; returns where the redirect landed. */
export async function signInAtIdp(
  page: Page,
  url: string,
  redirectUri: string,
  account: { login: string; password: string; clientName: string },
): Promise<URL> {
  const { login, password } = account;
  let landed: URL | null = null;
  await page.route(`${redirectUri}**`, async (route) => {
    landed = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the host' });
  });
  await page.goto(url);
  await page.getByLabel('Username').fill(login);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong username or password.');
  await page.getByRole('link', { name: 'Try again' }).click();
  await page.getByLabel('Username').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: `Allow ${account.clientName}?` })).toBeVisible();
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect.poll(() => landed).not.toBeNull();
  return landed!;
}
