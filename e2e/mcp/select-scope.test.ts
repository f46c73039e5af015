import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type TenantBundle } from '../../server/tenancy/admin.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

describe('app-only panel actions (svc_asset_panel) re-check scope server-side', () => {
  let srv: TestServer;
  let a: TestClient;
  let b: TestClient;
  let other: TenantBundle;
  let mine: string[];
  let theirs: string;
  beforeAll(async () => {
    srv = await startTestServer();
    a = await srv.connect(undefined, UI);
    other = await createTenant(srv.app.library.tenancy, 'Other tenant');
    b = await srv.connect(other.api_key, UI);
    mine = [];
    for (const [n, purpose] of [
      ['prairie_falcon', 'product_lifestyle'],
      ['silver_fir', 'hero_bg'],
      ['wood_anemones', 'hero_bg'],
    ] as const) {
      const r = await a.call('svc_asset_import', 'import', {
        data: demoFile(`images/nature/${n}.jpg`).toString('base64'),
        mime_type: 'image/jpeg',
        filename: `${n}.jpg`,
        purpose,
      });
      mine.push(r.structured.asset_id as string);
    }
    const t = await b.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/tanners_ridge.jpg').toString('base64'),
      mime_type: 'image/jpeg',
    });
    theirs = t.structured.asset_id as string;
  });
  afterAll(async () => srv.close());

  it('lists the panel router for hosts with visibility ["app"] and links panels by resourceUri', async () => {
    const { tools } = await a.client.listTools();
    const panel = tools.find((t) => t.name === 'svc_asset_panel');
    expect(panel?._meta).toMatchObject({ ui: { visibility: ['app'] } });
    expect(tools.find((t) => t.name === 'svc_asset_select')?._meta).toMatchObject({
      ui: { resourceUri: 'ui://atelier/asset-picker.html' },
      'ui/resourceUri': 'ui://atelier/asset-picker.html',
    });
    expect(tools.find((t) => t.name === 'svc_asset_library')?._meta).toMatchObject({
      ui: { resourceUri: 'ui://atelier/search-results.html' },
    });
  });

  it('page: random access at an offset within the snapshot of the given cursor, bound to its query and scope', async () => {
    const first = await a.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, limit: 1 });
    const cursor = first.structured.next_cursor as string;
    const chained = await a.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, limit: 1, cursor });
    const second = await a.call('svc_asset_library', 'search', {
      theme_id: srv.tenant.theme_id,
      limit: 1,
      cursor: chained.structured.next_cursor,
    });
    const jump = await a.call('svc_asset_panel', 'page', { theme_id: srv.tenant.theme_id, limit: 1, offset: 2, cursor });
    expect(jump.error).toBeUndefined();
    expect((jump.structured.assets as { id: string }[]).map((x) => x.id)).toEqual(
      (second.structured.assets as { id: string }[]).map((x) => x.id),
    );
    expect(jump.structured).toMatchObject({ total: 3, has_more: false, next_cursor: null });
    // an asset imported after the snapshot stays out of the pages of that cursor
    const late = await a.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/cyclamen_persicum.jpg').toString('base64'),
      mime_type: 'image/jpeg',
    });
    const all = await a.call('svc_asset_panel', 'page', { theme_id: srv.tenant.theme_id, limit: 50, offset: 0, cursor });
    expect((all.structured.assets as { id: string }[]).map((x) => x.id)).not.toContain(late.structured.asset_id);
    const past = await a.call('svc_asset_panel', 'page', { theme_id: srv.tenant.theme_id, limit: 50, offset: 500, cursor });
    expect(past.structured).toMatchObject({ assets: [], has_more: false });
    // the cursor is bound to its query and to tenant A: another query or tenant B cannot use it
    const otherQuery = await a.call('svc_asset_panel', 'page', { theme_id: srv.tenant.theme_id, query: 'falcon', offset: 0, cursor });
    expect(otherQuery.error).toMatchObject({ code: 'invalid_argument', field: 'args.cursor' });
    const foreign = await b.call('svc_asset_panel', 'page', { theme_id: other.theme_id, offset: 0, cursor });
    expect(foreign.error).toMatchObject({ code: 'invalid_argument', field: 'args.cursor' });
    const negative = await a.call('svc_asset_panel', 'page', { theme_id: srv.tenant.theme_id, offset: -1, cursor });
    expect(negative.error).toMatchObject({ code: 'invalid_argument', field: 'args.offset' });
    await a.call('svc_asset_manage', 'delete', { asset_ids: [late.structured.asset_id] });
  });

  it('thumbnails: data: URLs for own assets; a foreign id behaves like a missing one', async () => {
    const r = await a.call('svc_asset_panel', 'thumbnails', { asset_ids: [mine[0], theirs, '11111111-1111-4111-8111-111111111111'] });
    expect(r.isError).toBe(false);
    const th = r.structured.thumbnails as { asset_id: string; data_url: string; width: number; height: number; bytes: number }[];
    expect(th).toHaveLength(1);
    expect(th[0]!.asset_id).toBe(mine[0]);
    expect(th[0]!.data_url).toMatch(/^data:image\/jpeg;base64,\/9j\//);
    expect(Math.max(th[0]!.width, th[0]!.height)).toBe(320);
    expect(Buffer.from(th[0]!.data_url.split(',')[1]!, 'base64').length).toBe(th[0]!.bytes);
    expect(r.structured.not_found).toEqual([theirs, '11111111-1111-4111-8111-111111111111']);
    const bad = await a.call('svc_asset_panel', 'thumbnails', { asset_ids: [] });
    expect(bad.error).toMatchObject({ code: 'invalid_argument', field: 'args.asset_ids' });
  });

  it('thumbnails: size_px picks the smallest rendition covering it (high-DPI cells), the largest when none does', async () => {
    const at = async (size_px?: number) => {
      const r = await a.call('svc_asset_panel', 'thumbnails', { asset_ids: [mine[0]], ...(size_px ? { size_px } : {}) });
      expect(r.isError).toBe(false);
      const t = (r.structured.thumbnails as { data_url: string; width: number; height: number }[])[0]!;
      return { width: t.width, height: t.height, mime: /^data:(image\/[a-z]+);base64,/.exec(t.data_url)?.[1] };
    };
    // prairie_falcon is 800×533: thumbnail 320×213 (JPEG), WebP 320, 640 and 800 wide
    expect(await at()).toEqual({ width: 320, height: 213, mime: 'image/jpeg' });
    expect(await at(200)).toEqual({ width: 320, height: 213, mime: 'image/jpeg' });
    expect(await at(386)).toEqual({ width: 640, height: 426, mime: 'image/webp' });
    expect(await at(1280)).toEqual({ width: 800, height: 533, mime: 'image/webp' });
    const bad = await a.call('svc_asset_panel', 'thumbnails', { asset_ids: [mine[0]], size_px: 4000 });
    expect(bad.error).toMatchObject({ code: 'invalid_argument', field: 'args.size_px' });
  });

  it("facets count only the caller's workspace", async () => {
    const fa = await a.call('svc_asset_panel', 'facets', {});
    expect(fa.structured.total).toBe(3);
    const cats = fa.structured.categories as { category: string; count: number; subtypes: { subtype: string; count: number }[] }[];
    expect(cats.reduce((n, c) => n + c.count, 0) + (fa.structured.uncategorized as number)).toBe(3);
    expect(cats.find((c) => c.category === 'background')).toMatchObject({ count: 2, subtypes: [{ subtype: 'hero-bg', count: 2 }] });
    // facets count exactly what search returns for the query (words and calibrated meaning)
    const fq = await a.call('svc_asset_panel', 'facets', { query: 'falcon' });
    const sq = await a.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, query: 'falcon' });
    expect(fq.structured.total).toBe(sq.structured.total);
    expect((sq.structured.assets as { name: string }[])[0]!.name).toBe('prairie_falcon.jpg');
    // all three photos (falcon 800×533, fir 511×323, anemones 512×307) are landscape
    expect((await a.call('svc_asset_panel', 'facets', { orientation: 'landscape' })).structured.total).toBe(3);
    expect((await a.call('svc_asset_panel', 'facets', { orientation: 'portrait' })).structured).toMatchObject({ total: 0, categories: [] });
    const fb = await b.call('svc_asset_panel', 'facets', {});
    expect(fb.structured.total).toBe(1);
  });

  it("submit_selection: validates ids against the picker's workspace, is idempotent, and refuses a different second choice", async () => {
    const open = await a.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id });
    const picker = open.structured.picker_id as string;
    // Another tenant cannot see or confirm the picker.
    const foreignGet = await b.call('svc_asset_select', 'get_selection', { picker_id: picker });
    expect(foreignGet.error).toMatchObject({ code: 'not_found', field: 'args.picker_id' });
    const foreignSubmit = await b.call('svc_asset_panel', 'submit_selection', { picker_id: picker, asset_ids: [theirs] });
    expect(foreignSubmit.error).toMatchObject({ code: 'not_found', field: 'args.picker_id' });
    // A foreign asset id inside an own picker is not_found at its index; nothing is stored.
    const mixed = await a.call('svc_asset_panel', 'submit_selection', { picker_id: picker, asset_ids: [mine[1], theirs] });
    expect(mixed.error).toMatchObject({ code: 'not_found', field: 'args.asset_ids[1]' });
    const dup = await a.call('svc_asset_panel', 'submit_selection', { picker_id: picker, asset_ids: [mine[1], mine[1]] });
    expect(dup.error).toMatchObject({ code: 'invalid_argument', field: 'args.asset_ids[1]' });
    expect((await a.call('svc_asset_select', 'get_selection', { picker_id: picker })).structured.status).toBe('awaiting_user');

    const order = [mine[2]!, mine[0]!];
    const first = await a.call('svc_asset_panel', 'submit_selection', { picker_id: picker, asset_ids: order });
    expect(first.structured).toMatchObject({ status: 'confirmed', already_confirmed: false });
    expect((first.structured.selection as { id: string }[]).map((s) => s.id)).toEqual(order);
    const again = await a.call('svc_asset_panel', 'submit_selection', { picker_id: picker, asset_ids: order.map((x) => x.toUpperCase()) });
    expect(again.structured).toMatchObject({ status: 'confirmed', already_confirmed: true, confirmed_at: first.structured.confirmed_at });
    const changed = await a.call('svc_asset_panel', 'submit_selection', { picker_id: picker, asset_ids: [mine[0]] });
    expect(changed.error).toMatchObject({ code: 'conflict', field: 'args.asset_ids' });
    const state = await a.call('svc_asset_select', 'get_selection', { picker_id: picker });
    expect((state.structured.selection as { id: string }[]).map((s) => s.id)).toEqual(order);
  });

  it('a picker answered with candidates (client without MCP Apps) can still be confirmed from a panel the host rendered anyway, once', async () => {
    const plain = await srv.connect();
    const r = await plain.call('svc_asset_select', 'select', { theme_id: srv.tenant.theme_id });
    expect(r.structured.status).toBe('candidates');
    const s = await a.call('svc_asset_panel', 'submit_selection', { picker_id: r.structured.picker_id, asset_ids: [mine[0]] });
    expect(s.isError).toBe(false);
    expect(s.structured).toMatchObject({ status: 'confirmed', already_confirmed: false });
    const state = await plain.call('svc_asset_select', 'get_selection', { picker_id: r.structured.picker_id });
    expect(state.structured).toMatchObject({ status: 'confirmed', selection: [expect.objectContaining({ id: mine[0] })] });
    const again = await a.call('svc_asset_panel', 'submit_selection', { picker_id: r.structured.picker_id, asset_ids: [mine[1]] });
    expect(again.error).toMatchObject({ code: 'conflict' });
  });
});
