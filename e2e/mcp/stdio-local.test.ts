/**
 * `atelier serve --stdio` without ATELIER_API_KEY (issue 37, the desktop bundle: no key to paste for a local
 * single user): on a fresh data dir it serves the demo tenant it creates, whose photos arrive in the background;
 * with several tenants it refuses to guess; its local key can be revoked like any other, which ends keyless
 * access. Real child processes through the v2 client's stdio transport.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { backendEnv, REPO_ROOT, wrapClient } from './harness.ts';
import { CLI, spawnCli } from './processes.ts';

const run = promisify(execFile);

describe('serve --stdio without an API key', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const fresh = (): Record<string, string> => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-stdio-local-'));
    dirs.push(dataDir);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'ATELIER_API_KEY')) as Record<string, string>;
    // the photos' arrival is under test, not their enrichment (OCR of the whole demo would only compete for the CPU)
    return {
      ...env,
      ...backendEnv(path.basename(dataDir)),
      ATELIER_DATA_DIR: dataDir,
      ATELIER_LOG_LEVEL: 'warn',
      ATELIER_PORT: '0',
      ATELIER_ENRICHMENT: '0',
    };
  };
  const cli = async (env: Record<string, string>, ...args: string[]): Promise<Record<string, unknown>> =>
    JSON.parse((await run(process.execPath, [CLI, ...args], { env, cwd: REPO_ROOT })).stdout) as Record<string, unknown>;

  it(
    'serves a fresh data dir as its demo tenant: the demo photos become searchable; revoking its key ends it',
    { timeout: 240_000 },
    async () => {
      const env = fresh();
      const client = new Client({ name: 'stdio-local', version: '0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], env, stderr: 'pipe' }));
      const c = wrapClient(client);
      try {
        const scope = await c.call('svc_discover', 'scope', {});
        expect(scope.isError).toBe(false);
        const ws = scope.structured.workspaces as { name: string }[];
        expect(ws.map((w) => w.name)).toEqual(['Demo']);
        const themeId = (scope.structured.defaults as { theme_id: string }).theme_id;
        // the photos are imported after the transport connected: poll until the falcon is in
        let names: string[] = [];
        for (const end = Date.now() + 180_000; Date.now() < end && !names.includes('prairie_falcon.jpg');) {
          const r = await c.call('svc_asset_library', 'search', { theme_id: themeId, query: 'falcon', mode: 'filename' });
          expect(r.isError).toBe(false);
          names = (r.structured.assets as { name: string }[]).map((a) => a.name);
          if (!names.includes('prairie_falcon.jpg')) await new Promise((res) => setTimeout(res, 1000));
        }
        expect(names).toContain('prairie_falcon.jpg');

        // The local key is an ordinary key of the tenant: listed, and once revoked the next call is refused.
        const tenantId = String((await cli(env, 'seed-demo', '--json')).tenant_id); // idempotent: imports nothing new
        const listed = (await cli(env, 'keys', 'list', '--tenant', tenantId, '--json')) as { keys: { api_key_id: string; name: string }[] };
        const local = listed.keys.find((k) => k.name === 'local stdio');
        expect(local).toBeDefined();
        await cli(env, 'keys', 'revoke', '--key', local!.api_key_id, '--json');
        const refused = await c.call('svc_discover', 'scope', {});
        expect(refused.error?.code).toBe('unauthenticated');
      } finally {
        await client.close();
      }
      // A new keyless process on that data dir now refuses to start.
      const again = spawnCli(['serve', '--stdio'], env);
      again.proc.stdin!.end();
      const out = await again.exited;
      expect(out.code).not.toBe(0);
      expect(out.stderr).toMatch(/local key of this data directory has been revoked/);
    },
  );

  it('refuses to guess between several tenants and says to set ATELIER_API_KEY', { timeout: 120_000 }, async () => {
    const env = fresh();
    await cli(env, 'tenant', 'create', '--name', 'One', '--json');
    await cli(env, 'tenant', 'create', '--name', 'Two', '--json');
    const child = spawnCli(['serve', '--stdio'], env);
    child.proc.stdin!.end();
    const out = await child.exited;
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/holds 2 tenants: set ATELIER_API_KEY/);
    expect(out.stdout).toBe('');
  });
});
