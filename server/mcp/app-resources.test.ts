import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/client';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppResources, MCP_APP_MIME, panelResources } from './app-resources.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function capture(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      cb();
    },
  });
  return { log: pino({ level: 'warn' }, stream), lines };
}

async function connect(register: (s: McpServer) => void): Promise<Client> {
  const server = new McpServer({ name: 't', version: '0' });
  register(server);
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: 'c', version: '0' });
  await client.connect(ct);
  return client;
}

describe('MCP Apps panel resources', () => {
  it('serves each built panel as ui://atelier/<panel>.html with _meta.ui {csp, prefersBorder} and openai/widgetCSP on the listing and the content item', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-ui-'));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'asset-picker.html'), '<!doctype html><title>picker</title>');
    fs.writeFileSync(path.join(dir, 'search-results.html'), '<!doctype html><title>results</title>');
    const { log, lines } = capture();
    const client = await connect(createAppResources({ dir, cdnBase: () => 'http://127.0.0.1:4321', log }));
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri).sort();
    expect(uris).toEqual(['ui://atelier/asset-picker.html', 'ui://atelier/search-results.html']);
    const meta = {
      ui: { csp: { connectDomains: [], resourceDomains: ['http://127.0.0.1:4321'] }, prefersBorder: true },
      'openai/widgetCSP': { connect_domains: [], resource_domains: ['http://127.0.0.1:4321'] },
    };
    for (const r of resources) {
      expect(r.mimeType).toBe(MCP_APP_MIME);
      expect(r._meta).toEqual(meta);
    }
    const read = await client.readResource({ uri: 'ui://atelier/asset-picker.html' });
    expect(read.contents).toEqual([
      { uri: 'ui://atelier/asset-picker.html', mimeType: MCP_APP_MIME, text: '<!doctype html><title>picker</title>', _meta: meta },
    ]);
    // Cached after the first read: a rebuild on disk does not change a running server's answer.
    fs.writeFileSync(path.join(dir, 'asset-picker.html'), 'changed');
    expect((await client.readResource({ uri: 'ui://atelier/asset-picker.html' })).contents[0]).toMatchObject({
      text: '<!doctype html><title>picker</title>',
    });
    // Panels of the registry that were not built (here: all but these two) are named in one warning.
    const others = panelResources(dir)
      .map((p) => p.name)
      .filter((n) => n !== 'asset-picker' && n !== 'search-results');
    expect(lines.filter((l) => l.level === 40).map((l) => l.missing)).toEqual(others.length ? [others] : []);
  });

  it('lets the server start without built panels: nothing registered, one warning', async () => {
    const { log, lines } = capture();
    const client = await connect(
      createAppResources({ dir: path.join(os.tmpdir(), 'atelier-no-such-dir'), cdnBase: () => 'http://x', log }),
    );
    // No resource registered, so no resources capability; the raw request (the typed verb returns [] then) is unknown.
    expect(client.getServerCapabilities()?.resources).toBeUndefined();
    await expect(client.request({ method: 'resources/list', params: {} })).rejects.toThrow(/Method not found/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, missing: panelResources('/x').map((p) => p.name) });
    expect(lines[0]!.missing).toEqual(expect.arrayContaining(['search-results', 'asset-picker']));
  });
});
