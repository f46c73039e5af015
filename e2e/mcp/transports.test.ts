import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendEnv, demoFile, REPO_ROOT, startTestServer, wrapClient, type TestServer } from './harness.ts';
import { CLI } from './processes.ts';

const run = promisify(execFile);

describe('CLI and stdio transport (real child processes)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-cli-'));
  // the children share one data dir, and under test:scale its PostgreSQL schema and S3 prefix
  const env = {
    ...process.env,
    ...backendEnv(path.basename(dataDir)),
    ATELIER_DATA_DIR: dataDir,
    ATELIER_LOG_LEVEL: 'warn',
    ATELIER_PORT: '0',
  };
  const cli = async (...args: string[]): Promise<Record<string, unknown>> =>
    JSON.parse((await run(process.execPath, [CLI, ...args], { env, cwd: REPO_ROOT })).stdout) as Record<string, unknown>;
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  // eleven CLI child processes and a stdio server (each boots tsx and the app), nine photos imported: minutes on a busy machine
  it('creates tenants, workspaces and keys with stable JSON, imports files, and serves stdio', { timeout: 240_000 }, async () => {
    const t = await cli('tenant', 'create', '--name', 'Acme', '--json');
    expect(Object.keys(t).sort()).toEqual(['api_key', 'store_id', 'tenant_id', 'theme_id', 'workspace_id']);
    const imp = await cli('import', path.join(REPO_ROOT, 'demo/images/nature'), '--json');
    expect(imp).toMatchObject({ imported: 9, deduplicated: 0, failed: [] });
    const again = await cli(
      'import',
      path.join(REPO_ROOT, 'demo/images/nature/silver_fir.jpg'),
      '--workspace',
      String(t.workspace_id),
      '--json',
    );
    expect(again).toMatchObject({ imported: 0, deduplicated: 1 });

    const child = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio'],
      env: { ...env, ATELIER_API_KEY: String(t.api_key) },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '0' });
    await client.connect(child);
    const c = wrapClient(client);
    const r = await c.call('svc_asset_library', 'search', { theme_id: t.theme_id, query: 'silver fir', mode: 'filename' });
    expect((r.structured.assets as { name: string; url: string }[])[0]?.name).toBe('silver_fir.jpg');
    // The CDN listener runs beside stdio and serves the asset bytes.
    const res = await fetch((r.structured.assets as { url: string }[])[0]!.url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(demoFile('images/nature/silver_fir.jpg'))).toBe(true);

    // A second workspace makes the key's scope ambiguous.
    const ws = await cli('workspace', 'create', '--tenant', String(t.tenant_id), '--name', 'Outlet', '--json');
    const amb = await c.call('svc_asset_library', 'search', { theme_id: t.theme_id });
    expect(amb.error?.code).toBe('ambiguous_scope');
    const k = await cli('keys', 'create', '--tenant', String(t.tenant_id), '--workspace', String(ws.workspace_id), '--json');
    expect(k.workspace_ids).toEqual([ws.workspace_id]);
    // Operators set a generation budget per workspace.
    expect(await cli('credits', 'set-budget', '--workspace', String(ws.workspace_id), '--credits', '3', '--json')).toEqual({
      workspace_id: ws.workspace_id,
      budget: 3,
    });
    expect(await cli('credits', 'show', '--workspace', String(ws.workspace_id), '--json')).toEqual({
      workspace_id: ws.workspace_id,
      used: 0,
      budget: 3,
      remaining: 3,
      default_budget: false,
    });
    expect(await cli('credits', 'show', '--workspace', String(t.workspace_id), '--json')).toMatchObject({
      used: 0,
      budget: null,
      remaining: null,
    });
    // Deleting an asset stops its CDN URL at once; `atelier gc` removes the unreferenced files.
    const fir = (r.structured.assets as { id: string; url: string }[])[0]!;
    const del = await c.call('svc_asset_manage', 'delete', { asset_ids: [fir.id], workspace_id: t.workspace_id });
    expect(del.structured.deleted).toEqual([expect.objectContaining({ asset_id: fir.id })]);
    expect((await fetch(fir.url)).status).toBe(404);
    expect(await cli('gc', '--json')).toMatchObject({ removed: 0 });
    const gc = await cli('gc', '--grace-minutes', '0', '--json');
    expect(gc).toMatchObject({ kept_recent: 0 });
    expect(gc.removed).toBeGreaterThanOrEqual(2); // the original and its renditions
    expect(await cli('gc', '--grace-minutes', '0', '--json')).toMatchObject({ removed: 0 });
    await client.close();
  });

  it('fails at start naming every bad variable', async () => {
    const err = await run(process.execPath, [CLI, 'serve', '--http'], {
      env: { ...env, ATELIER_PORT: 'eighty', ATELIER_LOG_LEVEL: 'loud' },
      cwd: REPO_ROOT,
    }).catch((e: { stderr: string; code: number }) => e);
    expect((err as { code: number }).code).toBe(2);
    expect((err as { stderr: string }).stderr).toContain('ATELIER_PORT');
    expect((err as { stderr: string }).stderr).toContain('ATELIER_LOG_LEVEL');
  });
});

describe('Streamable HTTP transport', () => {
  let srv: TestServer;
  let url: string;
  beforeAll(async () => {
    srv = await startTestServer();
    url = (await srv.listen()).mcpUrl;
  });
  afterAll(async () => srv.close());

  it('serves a stateful session with a Bearer API key', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${srv.tenant.api_key}` } },
    });
    const client = new Client({ name: 'http-test', version: '0' });
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const c = wrapClient(client);
    const imp = await c.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/silver_fir.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'fir.jpg',
    });
    expect(imp.error).toBeUndefined();
    const r = await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, query: 'fir' });
    expect(r.structured.total).toBe(1);
    await transport.terminateSession();
    await client.close();
  });

  it('refuses missing or wrong keys, foreign sessions and rebinding Host headers', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect((await post({ authorization: 'Bearer atl_wrong' })).status).toBe(401);
    const ok = await post({ authorization: `Bearer ${srv.tenant.api_key}` });
    expect(ok.status).toBe(200);
    const sid = ok.headers.get('mcp-session-id')!;
    const { createTenant } = await import('../../server/tenancy/admin.ts');
    const intruder = await createTenant(srv.app.library.tenancy, 'Intruder');
    const hijack = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${intruder.api_key}`,
        'mcp-session-id': sid,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(403);
    // fetch() may not set Host; node:http can, as a DNS-rebinding page's browser would.
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(url);
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: {
            host: 'evil.example.com',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${srv.tenant.api_key}`,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
    expect(status).toBe(403);
  });

  it('caps the sessions of one API key by closing its least recently used one', async () => {
    const capped = await startTestServer({ env: { ATELIER_MAX_SESSIONS_PER_KEY: '2', ATELIER_ENRICHMENT: '0' } });
    try {
      const u = (await capped.listen()).mcpUrl;
      const open = async () => {
        const t = new StreamableHTTPClientTransport(new URL(u), {
          requestInit: { headers: { Authorization: `Bearer ${capped.tenant.api_key}` } },
        });
        const cl = new Client({ name: 'cap-test', version: '0' });
        await cl.connect(t);
        return { t, cl };
      };
      const a = await open();
      const b = await open();
      await b.cl.listTools();
      const c = await open(); // the third session closes the least recently used: a
      await expect(c.cl.listTools()).resolves.toBeDefined();
      await expect(b.cl.listTools()).resolves.toBeDefined();
      const stale = await fetch(u, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${capped.tenant.api_key}`,
          'mcp-session-id': a.t.sessionId!,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(stale.status).toBe(404);
      for (const x of [a, b, c]) await x.cl.close().catch(() => undefined);
    } finally {
      await capped.close();
    }
  });

  it('answers malformed and oversized bodies with JSON-RPC errors', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${srv.tenant.api_key}`,
    };
    const bad = await fetch(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0",' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
    // over the body limit (ATELIER_MAX_REQUEST_BYTES, 1 MiB: an upload chunk as base64 needs ~700 KB)
    const limit = srv.config.env.ATELIER_MAX_REQUEST_BYTES;
    const huge = await fetch(url, { method: 'POST', headers, body: `{"pad":"${'a'.repeat(limit)}"}` });
    expect(huge.status).toBe(413);
    const body = (await huge.json()) as { error: { message: string } };
    expect(body.error.message).toContain(`the limit of ${limit} bytes`);
  });
});
