import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTheme, createWorkspace } from '../../server/tenancy/admin.ts';
import { demoFile, startTestServer, type TestServer } from './harness.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/**
 * Issue 12, "done when" 1: an MCP client that knows only its API key finds its theme and completes
 * search → view → select (form elicitation) → generate, taking every id from the server's own answers.
 */
describe('an agent that knows only its API key', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    await srv.listen(); // the CDN route serves the URLs the agent is given
    // The library holds photos (imported by someone else's connection); the agent's client is fresh.
    const seeder = await srv.connect();
    for (const n of ['prairie_falcon', 'wood_anemones', 'silver_fir']) {
      const r = await seeder.call('svc_asset_import', 'import', {
        data: demoFile(`images/nature/${n}.jpg`).toString('base64'),
        mime_type: 'image/jpeg',
        filename: `${n}.jpg`,
        tags: ['nature'],
        alt_text: n.replace('_', ' '),
      });
      expect(r.isError).toBe(false);
    }
  });
  afterAll(async () => srv.close());

  it('finds its theme and completes search → view → select (elicitation) → generate without an id from a person', async () => {
    const agent = await srv.connect(undefined, { elicitation: { form: {} } });
    // 1. The initialize instructions name the key's only workspace and its default theme.
    const instructions = agent.client.getInstructions() ?? '';
    const fromInstructions = /Pass theme_id ([0-9a-f-]{36})/.exec(instructions)?.[1];
    expect(fromInstructions).toMatch(UUID);
    // 2. svc_discover scope says the same (and more), as data.
    const scope = await agent.call('svc_discover', 'scope', {});
    expect(scope.isError).toBe(false);
    const defaults = scope.structured.defaults as { workspace_id: string; theme_id: string; store_id: string };
    expect(defaults.theme_id).toBe(fromInstructions);
    expect(scope.text).toContain(defaults.theme_id);
    // 3. A search without theme_id is refused (spec rule 6) with the candidates to retry with.
    const missing = await agent.call('svc_asset_library', 'search', { query: 'falcon' });
    expect(missing.error).toMatchObject({ code: 'invalid_argument', field: 'args.theme_id' });
    const candidates = missing.error!.details!.candidates as { id: string; default: boolean }[];
    expect(candidates).toEqual([expect.objectContaining({ id: defaults.theme_id, default: true })]);
    // 4. search → the asset's id and URL come from the result text alone.
    const found = await agent.call('svc_asset_library', 'search', { theme_id: defaults.theme_id, query: 'falcon' });
    const line = found.text.split('\n').find((l) => l.includes('prairie_falcon.jpg'))!;
    const assetId = UUID.exec(line)![0];
    const url = /(https?:\/\/\S+)$/.exec(line)![1]!;
    expect(found.text).toContain('HeroMedia');
    // 5. view it.
    const view = await agent.call('svc_assets', 'view', { asset_id: assetId });
    expect(view.content.some((c) => c.type === 'image')).toBe(true);
    expect(view.structured.url).toBe(url);
    // 6. select: the client answers the form with the first offered asset.
    agent.client.setRequestHandler('elicitation/create', async (req) => {
      const offered = (
        req.params as unknown as { requestedSchema: { properties: { asset_ids: { items: { anyOf: { const: string }[] } } } } }
      ).requestedSchema.properties.asset_ids.items.anyOf;
      return { action: 'accept', content: { asset_ids: [offered[0]!.const] } };
    });
    const picked = await agent.call('svc_asset_select', 'select', { theme_id: defaults.theme_id, query: 'nature' });
    expect(picked.structured).toMatchObject({ status: 'confirmed', delivery: 'elicitation' });
    const chosen = (picked.structured.selection as { url: string }[])[0]!;
    // 7. generate a composite from the chosen asset's URL; the result is a library asset with a permanent URL.
    const caps = await agent.call('svc_assets', 'capabilities', {});
    const local = (caps.structured.capabilities as { provider: string; model: string }[]).find((c) => c.provider === 'local')!;
    const gen = await agent.call('svc_drafts', 'asset_generate', {
      prompt: 'soft beige studio background, the bird small on the left',
      style: 'photography',
      purpose: 'product_composite',
      provider: local.provider,
      model: local.model,
      reference_images: [chosen.url],
      aspect: 'square',
      quality: 'low',
    });
    expect(gen.isError, gen.text).toBe(false);
    expect(gen.structured.url).toMatch(/\/a\/[A-Za-z0-9_-]{22}\.(png|jpg|webp)$/);
    expect(gen.text).toContain(gen.structured.url as string);
    expect((await fetch(gen.structured.url as string)).status).toBe(200);
  });

  it('with several workspaces: the instructions send the agent to scope, which lists them; errors carry candidates', async () => {
    const t = srv.app.library.tenancy;
    const tenant = await createTenant(t, 'Two workspaces');
    const second = await createWorkspace(t, tenant.tenant_id, 'Outlet');
    await createTheme(t, tenant.tenant_id, second.workspace_id, 'Outlet winter', { makeDefault: true });
    const agent = await srv.connect(tenant.api_key);
    expect(agent.client.getInstructions()).toContain('svc_discover scope');
    const scope = await agent.call('svc_discover', 'scope', {});
    const ws = scope.structured.workspaces as { id: string; themes: { id: string; name: string; default: boolean }[]; stores: unknown[] }[];
    expect(ws.map((w) => w.id).sort()).toEqual([tenant.workspace_id, second.workspace_id].sort());
    expect(scope.structured.defaults).toEqual({ workspace_id: null, store_id: null, theme_id: null });
    const outlet = ws.find((w) => w.id === second.workspace_id)!;
    expect(outlet.themes.filter((th) => th.default).map((th) => th.name)).toEqual(['Outlet winter']);
    expect(outlet.themes).toHaveLength(2);
    const ambiguous = await agent.call('svc_asset_library', 'search', {});
    expect(ambiguous.error).toMatchObject({ code: 'ambiguous_scope', field: 'args.workspace_id' });
    expect((ambiguous.error!.details!.candidates as { id: string }[]).map((c) => c.id).sort()).toEqual(
      [tenant.workspace_id, second.workspace_id].sort(),
    );
    // a theme of the other workspace is not found here, and the error lists this workspace's themes
    const wrong = await agent.call('svc_asset_library', 'search', { workspace_id: tenant.workspace_id, theme_id: outlet.themes[0]!.id });
    expect(wrong.error).toMatchObject({ code: 'not_found', field: 'args.theme_id' });
    expect((wrong.error!.details!.candidates as { id: string }[]).map((c) => c.id)).toEqual([tenant.theme_id]);
    // two stores in a workspace: catalog calls without store_id are ambiguous, with both stores as candidates
    const s2 = await agent.call('svc_catalog', 'list_products', { workspace_id: second.workspace_id });
    expect(s2.isError).toBe(false);
    await t.insertStore({
      id: '0f0f0f0f-0000-4000-8000-000000000001',
      tenant_id: tenant.tenant_id,
      workspace_id: second.workspace_id,
      name: 'Outlet B',
      platform: 'shopify',
      shop_domain: null,
      created_at: new Date().toISOString(),
    });
    const twoStores = await agent.call('svc_catalog', 'list_products', { workspace_id: second.workspace_id });
    expect(twoStores.error).toMatchObject({ code: 'ambiguous_scope', field: 'args.store_id' });
    expect(twoStores.error!.details!.candidates as { id: string }[]).toHaveLength(2);
  });

  it('refuses a query with mode similar instead of ignoring it', async () => {
    const agent = await srv.connect();
    const any = await agent.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, limit: 1 });
    const id = (any.structured.assets as { id: string }[])[0]!.id;
    const r = await agent.call('svc_asset_library', 'search', {
      theme_id: srv.tenant.theme_id,
      mode: 'similar',
      similar_to_asset_id: id,
      query: 'red',
    });
    expect(r.error).toMatchObject({ code: 'invalid_argument', field: 'args.query' });
    expect(r.error!.message).toMatch(/not used by mode similar/);
  });
});
