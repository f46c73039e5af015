import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

/** svc_asset_select when the interactive path fails or is absent (issue 10 items 7 and 16). */
describe('svc_asset_select fallbacks', () => {
  let srv: TestServer;
  let plain: TestClient;
  const ids: string[] = [];
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_PICKER_TTL_MS: '300' } });
    plain = await srv.connect();
    // 27 small distinct swatches, all tagged "swatch"
    for (let i = 0; i < 27; i++) {
      const png = await sharp({
        create: { width: 24, height: 16, channels: 3, background: { r: i * 9, g: 255 - i * 9, b: (i * 37) % 256 } },
      })
        .png()
        .toBuffer();
      const r = await plain.call('svc_asset_import', 'import', {
        data: png.toString('base64'),
        mime_type: 'image/png',
        filename: `swatch-${i}.png`,
        tags: ['swatch'],
      });
      ids.push(r.structured.asset_id as string);
    }
  }, 120_000);
  afterAll(async () => srv.close());

  it('without panels or elicitation: returns up to limit candidates with total and a cursor to page on', async () => {
    const first = await plain.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id, query: 'swatch', limit: 25 });
    expect(first.error).toBeUndefined();
    expect(first.structured).toMatchObject({ status: 'candidates', delivery: 'text', total: 27, has_more: true });
    expect(first.structured.candidates as unknown[]).toHaveLength(25);
    expect(first.text).toContain('27');
    const next = await plain.call('svc_asset_select', 'select', {
      theme_id: srv.tenant.theme_id,
      query: 'swatch',
      limit: 25,
      cursor: first.structured.next_cursor,
    });
    expect(next.structured).toMatchObject({ total: 27, has_more: false, next_cursor: null });
    const all = [...(first.structured.candidates as { id: string }[]), ...(next.structured.candidates as { id: string }[])].map(
      (c) => c.id,
    );
    expect(new Set(all)).toEqual(new Set(ids));
  });

  for (const failure of ['the handler throws', 'the answer does not match the form'] as const) {
    it(`elicitation failure (${failure}) falls back to the candidate list and closes the picker`, async () => {
      const client = await srv.connect(undefined, { elicitation: { form: {} } });
      client.client.setRequestHandler('elicitation/create', async () => {
        if (failure === 'the handler throws') throw new Error('no UI available');
        return { action: 'accept', content: { asset_ids: 'not-a-list' } };
      });
      const r = await client.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id, query: 'swatch', limit: 5 });
      expect(r.error).toBeUndefined();
      expect(r.structured).toMatchObject({ status: 'candidates', delivery: 'elicitation', total: 27 });
      expect(r.structured.candidates as unknown[]).toHaveLength(5);
      expect(r.text).toContain('ASK THE USER');
      const state = await plain.call('svc_asset_select', 'get_selection', { picker_id: r.structured.picker_id });
      expect(state.structured.status).toBe('candidates');
    });
  }

  it('a panel picker nobody confirms expires (ATELIER_PICKER_TTL_MS) instead of awaiting the user forever', async () => {
    const ui = await srv.connect(undefined, UI);
    const r = await ui.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id, query: 'swatch' });
    expect(r.structured).toMatchObject({ status: 'awaiting_user', delivery: 'panel' });
    await new Promise((res) => setTimeout(res, 500));
    const state = await plain.call('svc_asset_select', 'get_selection', { picker_id: r.structured.picker_id });
    expect(state.structured.status).toBe('expired');
    expect(state.text).toContain('expired');
    const late = await ui.call('svc_asset_panel', 'submit_selection', { picker_id: r.structured.picker_id, asset_ids: [ids[0]] });
    expect(late.error).toMatchObject({ code: 'conflict', field: 'args.asset_ids' });
    expect(late.error!.message).toContain('expired');
  });
});
