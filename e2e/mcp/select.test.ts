import type { ElicitRequest } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
const NATURE = ['prairie_falcon', 'wood_anemones', 'silver_fir', 'tanners_ridge'];

interface Sel {
  position: number;
  id: string;
  name: string;
  original_url: string;
}

describe('svc_asset_select without panels: elicitation and text fallbacks', () => {
  let srv: TestServer;
  let plain: TestClient;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    srv = await startTestServer();
    plain = await srv.connect();
    for (const n of NATURE) {
      const r = await plain.call('svc_asset_import', 'import', {
        data: demoFile(`images/nature/${n}.jpg`).toString('base64'),
        mime_type: 'image/jpeg',
        filename: `${n}.jpg`,
        tags: ['nature'],
      });
      ids[n] = r.structured.asset_id as string;
    }
  });
  afterAll(async () => srv.close());

  it('elicits a titled multi-select of the best matches when the client advertises form elicitation, and returns the choice in order', async () => {
    const client = await srv.connect(undefined, { elicitation: { form: {} } });
    const asked: ElicitRequest['params'][] = [];
    client.client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(req.params);
      return { action: 'accept', content: { asset_ids: [ids.silver_fir!, ids.prairie_falcon!] } };
    });
    const r = await client.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id, query: 'nature' });
    expect(r.isError).toBe(false);
    expect(asked).toHaveLength(1);
    const schema = (
      asked[0] as unknown as {
        requestedSchema: {
          properties: { asset_ids: { type: string; maxItems: number; items: { anyOf: { const: string; title: string }[] } } };
        };
      }
    ).requestedSchema;
    const offered = schema.properties.asset_ids.items.anyOf;
    expect(schema.properties.asset_ids.type).toBe('array');
    expect(offered.map((o) => o.const).sort()).toEqual(Object.values(ids).sort());
    expect(offered.find((o) => o.const === ids.silver_fir)?.title).toMatch(/^silver_fir\.jpg \(\d+×\d+\)$/);
    expect(r.structured).toMatchObject({ status: 'confirmed', delivery: 'elicitation' });
    const sel = r.structured.selection as Sel[];
    expect(sel.map((s) => [s.position, s.id, s.name])).toEqual([
      [1, ids.silver_fir, 'silver_fir.jpg'],
      [2, ids.prairie_falcon, 'prairie_falcon.jpg'],
    ]);
    expect(sel[0]!.original_url).toMatch(/\/a\/[A-Za-z0-9_-]{22}\.jpg$/);
    expect(r.text).toContain('The user selected 2 asset(s)');
    expect(r.text.indexOf('silver_fir.jpg')).toBeLessThan(r.text.indexOf('prairie_falcon.jpg'));
    // The choice is persisted: get_selection by picker id returns it, from any connection of the same key.
    const state = await plain.call('svc_asset_select', 'get_selection', { picker_id: r.structured.picker_id });
    expect(state.structured).toMatchObject({ status: 'confirmed' });
    expect((state.structured.selection as Sel[]).map((s) => s.id)).toEqual([ids.silver_fir, ids.prairie_falcon]);
  });

  it('records a declined elicitation and ignores ids that were not offered', async () => {
    const client = await srv.connect(undefined, { elicitation: {} });
    let answer: { action: 'decline' } | { action: 'accept'; content: { asset_ids: string[] } } = { action: 'decline' };
    client.client.setRequestHandler('elicitation/create', async () => answer);
    const declined = await client.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id });
    expect(declined.structured).toMatchObject({ status: 'declined', delivery: 'elicitation', selection: [] });
    expect(declined.text).toContain('declined');
    expect((await plain.call('svc_asset_select', 'get_selection', { picker_id: declined.structured.picker_id })).structured.status).toBe(
      'declined',
    );
    // An id outside the offered candidates is dropped (the form's schema also forbids it).
    answer = { action: 'accept', content: { asset_ids: [ids.wood_anemones!] } };
    const ok = await client.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id, query: 'anemones' });
    expect((ok.structured.selection as Sel[]).map((s) => s.id)).toEqual([ids.wood_anemones]);
  });

  it('returns ranked candidates and tells the agent to ask the user when the client has neither panels nor elicitation', async () => {
    const r = await plain.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id, query: 'falcon', mode: 'filename' });
    expect(r.isError).toBe(false);
    expect(r.structured).toMatchObject({ status: 'candidates', delivery: 'text', selection: [], page: null });
    const c = r.structured.candidates as Sel[];
    expect(c.map((x) => [x.position, x.id])).toEqual([[1, ids.prairie_falcon]]);
    expect(r.text).toContain('ASK THE USER');
    expect(r.text).toContain(`id ${ids.prairie_falcon}`);
    expect(r.text).toContain(c[0]!.original_url);
  });

  it('opens the panel for an MCP Apps client: returns at once with a picker id, the first page, and text to wait', async () => {
    const ui = await srv.connect(undefined, UI);
    const r = await ui.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id, limit: 2 });
    expect(r.isError).toBe(false);
    expect(r.structured).toMatchObject({ status: 'awaiting_user', delivery: 'panel', selection: [], candidates: [] });
    const page = r.structured.page as { assets: unknown[]; total: number; has_more: boolean };
    expect(page.assets).toHaveLength(2);
    expect(page).toMatchObject({ total: 4, has_more: true });
    expect(r.text).toContain('NOTHING IS SELECTED YET');
    expect(r.text).toContain('get_selection');
    const pending = await ui.call('svc_asset_select', 'get_selection', { picker_id: r.structured.picker_id });
    expect(pending.structured).toMatchObject({ status: 'awaiting_user', selection: [], confirmed_at: null });
    expect(pending.text).toContain('has not confirmed');
  });

  it('validates select args like search (theme_id required, subtype within category)', async () => {
    const r = await plain.call('svc_asset_select', 'select', { query: 'x' });
    expect(r.error).toMatchObject({ code: 'invalid_argument', field: 'args.theme_id' });
    const s = await plain.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id, category: 'product', subtype: 'logo' });
    expect(s.error).toMatchObject({ code: 'invalid_argument', field: 'args.subtype' });
  });
});
