import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expect, type Page } from '@playwright/test';
import { wrapClient, type TestClient } from '../mcp/harness.ts';

/** What an OAuth host does against Atelier, step by step (e2e/panels/oauth.spec.ts): plain fetch and the v2 MCP client. */
export interface Discovered {
  resource: string;
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  revocation_endpoint: string;
}

export const b64url = (b: Buffer) => b.toString('base64url');

export async function discover(mcpUrl: string): Promise<Discovered> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{}',
  });
  expect(res.status).toBe(401);
  const challenge = res.headers.get('www-authenticate') ?? '';
  const prmUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  expect(prmUrl).toBeTruthy();
  const prm = (await (await fetch(prmUrl!)).json()) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
  expect(prm.resource).toBe(mcpUrl);
  expect(prm.scopes_supported).toEqual(['mcp']);
  const issuer = prm.authorization_servers[0]!;
  // RFC 8414 §3.1 path-inserted form, as the MCP SDK client tries first
  const u = new URL(issuer);
  const meta = (await (await fetch(`${u.origin}/.well-known/oauth-authorization-server${u.pathname}`)).json()) as Omit<
    Discovered,
    'resource'
  > & {
    code_challenge_methods_supported: string[];
  };
  expect(meta.issuer).toBe(issuer);
  expect(meta.code_challenge_methods_supported).toEqual(['S256']);
  return { resource: prm.resource, ...meta };
}

export async function register(d: Discovered, redirectUri: string, name: string): Promise<string> {
  const res = await fetch(d.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

export function authorizeUrl(d: Discovered, clientId: string, redirectUri: string, challenge: string, state: string): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'mcp',
    resource: d.resource,
    state,
  });
  return `${d.authorization_endpoint}?${q}`;
}

/** Run the browser part (sign-in, consent with `workspaceNames` ticked) and return the code the redirect carried. */
export async function signInAndConsent(
  page: Page,
  url: string,
  redirectUri: string,
  apiKey: string,
  workspaceNames: string[],
): Promise<URL> {
  let landed: URL | null = null;
  await page.route(`${redirectUri}**`, async (route) => {
    landed = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the host' });
  });
  const first = await page.goto(url);
  expect(first!.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  await page.getByLabel('Or an API key of your tenant').fill('atl_wrong');
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await expect(page.getByRole('alert')).toHaveText('That API key is not valid.');
  await page.getByLabel('Or an API key of your tenant').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await expect(page.getByRole('heading', { name: 'Allow OAuth test host?' })).toBeVisible();
  for (const n of workspaceNames) await page.getByLabel(n).check();
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect.poll(() => landed).not.toBeNull();
  return landed!;
}

export async function token(d: Discovered, body: Record<string, string>): Promise<{ status: number; json: Record<string, string> }> {
  const res = await fetch(d.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, string> };
}

export async function mcpWith(mcpUrl: string, accessToken: string): Promise<TestClient> {
  const client = new Client({ name: 'oauth-host', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }),
  );
  return wrapClient(client);
}

/** Status of one tools/list POST with this bearer token (no session: the auth check comes first). */
export async function statusWith(mcpUrl: string, bearer: string): Promise<number> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
    }),
  });
  return res.status;
}
