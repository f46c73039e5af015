/**
 * The authorization server's signing keys (issue 37): processes starting at once on an empty database
 * agree on one key, and `atelier auth rotate-keys` puts a new key first while the old one still
 * verifies; a server started after the rotation publishes both, the new one first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { createLogger } from '../../server/log.ts';
import { cookieKeys, signingKeys } from '../../server/oauth/keys.ts';
import { createGrantKey } from '../../server/tenancy/admin.ts';
import { closeTestDatabase, openTestDatabase, startTestServer, tempConfig } from './harness.ts';
import { spawnCli } from './processes.ts';

/** The kids `/oauth` publishes, through the authorization server metadata's `jwks_uri`. */
async function publishedKids(origin: string): Promise<string[]> {
  const meta = (await (await fetch(`${origin}/.well-known/oauth-authorization-server/oauth`)).json()) as { jwks_uri: string };
  const jwks = (await (await fetch(meta.jwks_uri)).json()) as { keys: { kid: string; d?: string }[] };
  expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
  return jwks.keys.map((k) => k.kid);
}

describe('OAuth signing keys', () => {
  it('two processes starting on an empty database sign with one key', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-keys-'));
    await openTestDatabase(dir);
    const silent = createLogger('silent');
    const [a, b] = await Promise.all([buildApp(tempConfig({}, dir), silent), buildApp(tempConfig({}, dir), silent)]);
    try {
      const [ka, kb] = await Promise.all([signingKeys(a.stores.oauth), signingKeys(b.stores.oauth)]);
      expect(ka.map((k) => k.kid)).toEqual(kb.map((k) => k.kid));
      expect(ka).toHaveLength(1);
      const [ca, cb] = await Promise.all([cookieKeys(a.stores.oauth), cookieKeys(b.stores.oauth)]);
      expect(ca).toEqual(cb);
    } finally {
      await a.close();
      await b.close();
      await closeTestDatabase(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rotate-keys: a server started afterwards publishes the new key first and still the old', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-rotate-'));
    await openTestDatabase(dir);
    try {
      const first = await startTestServer({ dataDir: dir, env: { ATELIER_ENRICHMENT: '0' } });
      const origin = new URL((await first.listen()).mcpUrl).origin;
      const before = await publishedKids(origin);
      expect(before).toHaveLength(1);
      const r = await spawnCli(['auth', 'rotate-keys', '--json'], { ATELIER_DATA_DIR: dir }).exited;
      expect(r.code).toBe(0);
      const { kids } = JSON.parse(r.stdout) as { kids: string[] };
      expect(kids).toHaveLength(2);
      expect(kids[1]).toBe(before[0]);
      await first.close();
      const second = await startTestServer({ dataDir: dir, env: { ATELIER_ENRICHMENT: '0' } });
      try {
        expect(await publishedKids(new URL((await second.listen()).mcpUrl).origin)).toEqual(kids);
      } finally {
        await second.close();
      }
    } finally {
      await closeTestDatabase(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('grants revoke takes a grant id that begins with a dash (grant ids are base64url)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-grants-'));
    await openTestDatabase(dir);
    try {
      const srv = await startTestServer({ dataDir: dir, env: { ATELIER_ENRICHMENT: '0' } });
      const grantId = '-aSpynt1EsrPJpUyi1x1wjMVUaYmPPwp6Z_C_mAYUm1';
      await createGrantKey(srv.app.stores.tenancy, srv.tenant.tenant_id, grantId, 'Test connector', [srv.tenant.workspace_id]);
      await srv.close();
      const r = await spawnCli(['grants', 'revoke', grantId, '--json'], { ATELIER_DATA_DIR: dir }).exited;
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toEqual({ grant_id: grantId, revoked: true });
      const list = await spawnCli(['grants', 'list', '--tenant', srv.tenant.tenant_id, '--json'], { ATELIER_DATA_DIR: dir }).exited;
      expect((JSON.parse(list.stdout) as { grants: { grant_id: string; revoked_at: string | null }[] }).grants).toEqual([
        expect.objectContaining({ grant_id: grantId, revoked_at: expect.any(String) }),
      ]);
    } finally {
      await closeTestDatabase(dir);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
