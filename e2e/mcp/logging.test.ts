import { Writable } from 'node:stream';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { createServer } from '../../server/mcp/create-server.ts';
import { authenticate, createTenant } from '../../server/tenancy/admin.ts';
import { tempConfig, wrapClient } from './harness.ts';

describe('logging', () => {
  it('writes one line per tool call with router, action, outcome, duration, tenant and resolved workspace, never the key', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    });
    const config = tempConfig({ ATELIER_ENRICHMENT: '0' });
    const app = await buildApp(config, pino({ level: 'info' }, sink));
    const t = await createTenant(app.library.tenancy, 'Logged');
    const server = await createServer(app.server, async () => (await authenticate(app.library.tenancy, t.api_key))!);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 'log-test', version: '0' });
    await client.connect(a);
    const c = wrapClient(client);
    await c.call('svc_asset_library', 'search', { theme_id: t.theme_id, query: 'anything' });
    await c.call('svc_asset_library', 'search', { theme_id: t.theme_id, limit: 99 });
    await client.close();
    await app.close();
    const calls = lines.filter((l) => l.msg === 'tool call');
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      router: 'svc_asset_library',
      action: 'search',
      outcome: 'ok',
      tenant_id: t.tenant_id,
      workspace_id: t.workspace_id,
    });
    expect(typeof calls[0]!.duration_ms).toBe('number');
    expect(calls[1]).toMatchObject({ outcome: 'invalid_argument' });
    expect(JSON.stringify(lines)).not.toContain(t.api_key);
  });
});
