import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttpClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDemoCsvs } from '../fixtures/catalog.ts';
import { smallDemoPhoto } from './fixtures.ts';
import { backendEnv, startTestServer, type TestServer } from './harness.ts';
import { CLI } from './processes.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const MODERN = '2026-07-28';

/** What a tool call answered, whichever SDK made it. */
interface Answer {
  isError: boolean;
  structured: Record<string, unknown>;
  content: { type: string }[];
  text: string;
}
type CallTool = (name: string, args: Record<string, unknown>) => Promise<unknown>;

function caller(callTool: CallTool) {
  return async (router: string, action: string, args: Record<string, unknown> = {}): Promise<Answer> => {
    const r = (await callTool(router, { action, args })) as { structuredContent?: unknown; content?: unknown; isError?: unknown };
    const content = (r.content ?? []) as { type: string; text?: string }[];
    return {
      isError: r.isError === true,
      structured: (r.structuredContent ?? {}) as Record<string, unknown>,
      content,
      text: content
        .filter((c) => c.type === 'text')
        .map((c) => c.text)
        .join('\n'),
    };
  };
}

/** The elicitation answer of both SDKs' handlers: the first asset the form offers. */
function pickFirst(req: { params: unknown }): { action: 'accept'; content: { asset_ids: string[] } } {
  const offered = (req.params as { requestedSchema: { properties: { asset_ids: { items: { anyOf: { const: string }[] } } } } })
    .requestedSchema.properties.asset_ids.items.anyOf;
  return { action: 'accept', content: { asset_ids: [offered[0]!.const] } };
}

/**
 * The journey of issue 31 ("done when" 1): search → view → select (the user picks through the client's
 * form) → generate from the chosen asset → import → list_products → get_product, every id taken from the
 * server's answers.
 */
async function journey(call: ReturnType<typeof caller>, themeId: string, photo: string): Promise<void> {
  const found = await call('svc_asset_library', 'search', { theme_id: themeId, query: 'falcon' });
  expect(found.isError, found.text).toBe(false);
  const assetId = (found.structured.assets as { id: string; name: string }[]).find((a) => a.name === 'prairie_falcon.jpg')!.id;
  expect(assetId).toMatch(UUID);
  const view = await call('svc_assets', 'view', { asset_id: assetId });
  expect(view.content.some((c) => c.type === 'image')).toBe(true);
  const picked = await call('svc_asset_select', 'select', { theme_id: themeId, query: 'nature' });
  expect(picked.structured, picked.text).toMatchObject({ status: 'confirmed', delivery: 'elicitation' });
  const chosen = (picked.structured.selection as { url: string }[])[0]!;
  const state = await call('svc_asset_select', 'get_selection', { picker_id: picked.structured.picker_id });
  expect(state.structured).toMatchObject({ status: 'confirmed' });
  const caps = await call('svc_assets', 'capabilities', {});
  const local = (caps.structured.capabilities as { provider: string; model: string }[]).find((c) => c.provider === 'local')!;
  const gen = await call('svc_drafts', 'asset_generate', {
    prompt: 'soft beige studio background, the picked photo small on the left',
    style: 'photography',
    purpose: 'product_composite',
    provider: local.provider,
    model: local.model,
    reference_images: [chosen.url],
    aspect: 'square',
    quality: 'low',
  });
  expect(gen.isError, gen.text).toBe(false);
  expect((await fetch(gen.structured.url as string)).status).toBe(200);
  const imported = await call('svc_asset_import', 'import', {
    data: (await smallDemoPhoto(`images/nature/${photo}.jpg`, 640)).toString('base64'),
    mime_type: 'image/jpeg',
    filename: `${photo}.jpg`,
  });
  expect(imported.isError, imported.text).toBe(false);
  const products = await call('svc_catalog', 'list_products', { query: 'shirt' });
  expect(products.isError, products.text).toBe(false);
  const first = (products.structured.items as { product_id: string }[])[0]!;
  const full = await call('svc_catalog', 'get_product', { product_ids: [first.product_id] });
  expect(full.isError, full.text).toBe(false);
  expect((full.structured.products as { id: string; title: string }[])[0]).toMatchObject({ id: first.product_id });
}

/** A v2 client pinned to revision 2026-07-28 (no initialize, no session), with form elicitation. */
function modernClient(): Client {
  const client = new Client(
    { name: 'modern-agent', version: '0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: MODERN } } },
  );
  client.setRequestHandler('elicitation/create', async (req) => pickFirst(req));
  return client;
}

/** An SDK 1.32 client (2025-11-25, initialize and a session), with form elicitation. */
function legacyClient(): LegacyClient {
  const client = new LegacyClient({ name: 'legacy-agent', version: '0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => pickFirst(req));
  return client;
}

/**
 * Issue 31 items 1-2: one server answers a 2026-07-28 client and a 2025-11-25 client, over Streamable HTTP
 * (one endpoint, routed by what each request carries) and over stdio (the era pinned by the opening exchange).
 */
describe('both protocol eras against one server', () => {
  let srv: TestServer;
  let themeId: string;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_EMBEDDER: 'none' } });
    themeId = srv.tenant.theme_id;
    await srv.listen();
    await importDemoCsvs(srv);
    const seeder = await srv.connect();
    for (const n of ['prairie_falcon', 'wood_anemones', 'silver_fir']) {
      const r = await seeder.call('svc_asset_import', 'import', {
        data: (await smallDemoPhoto(`images/nature/${n}.jpg`, 640)).toString('base64'),
        mime_type: 'image/jpeg',
        filename: `${n}.jpg`,
        tags: ['nature'],
      });
      expect(r.isError).toBe(false);
    }
  });
  afterAll(async () => srv.close());

  const headers = (): Record<string, string> => ({ Authorization: `Bearer ${srv.tenant.api_key}` });

  it('over HTTP: a v2 client on 2026-07-28 without a session and an SDK 1.32 client in a session both complete the journey', async () => {
    const url = new URL((await srv.listen()).mcpUrl);
    const modernTransport = new StreamableHTTPClientTransport(url, { requestInit: { headers: headers() } });
    const modern = modernClient();
    await modern.connect(modernTransport);
    const legacyTransport = new LegacyHttpClientTransport(url, { requestInit: { headers: headers() } });
    const legacy = legacyClient();
    await legacy.connect(legacyTransport);
    try {
      expect(modern.getProtocolEra()).toBe('modern');
      expect(modernTransport.sessionId).toBeUndefined();
      expect(legacyTransport.sessionId).toBeDefined();
      expect(legacyTransport.protocolVersion).toBe('2025-11-25');
      await journey(
        caller((name, args) => modern.callTool({ name, arguments: args })),
        themeId,
        'el_torcal_rocks',
      );
      await journey(
        caller((name, args) => legacy.callTool({ name, arguments: args })),
        themeId,
        'tanners_ridge',
      );
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it('over stdio: both clients complete the journey against `atelier serve --stdio`', { timeout: 240_000 }, async () => {
    const env = {
      ...backendEnv(path.basename(srv.config.dataDir)),
      ATELIER_DATA_DIR: srv.config.dataDir,
      ATELIER_PORT: '0',
      ATELIER_ENRICHMENT: '0',
      ATELIER_EMBEDDER: 'none',
      ATELIER_LOG_LEVEL: 'warn',
      ATELIER_API_KEY: srv.tenant.api_key,
    };
    const params = { command: process.execPath, args: [CLI, 'serve', '--stdio'], env, stderr: 'ignore' as const };
    const modern = modernClient();
    await modern.connect(new StdioClientTransport(params));
    const legacy = legacyClient();
    await legacy.connect(new LegacyStdioClientTransport(params));
    try {
      expect(modern.getProtocolEra()).toBe('modern');
      expect(legacy.getServerCapabilities()?.tools).toBeDefined();
      await journey(
        caller((name, args) => modern.callTool({ name, arguments: args })),
        themeId,
        'cyclamen_persicum',
      );
      await journey(
        caller((name, args) => legacy.callTool({ name, arguments: args })),
        themeId,
        'polemonium_reptans',
      );
    } finally {
      await modern.close();
      await legacy.close();
    }
  });
});
