import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IMAGE_PRIORITY } from '../../server/assets/image-pool.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

describe('svc_assets view and capabilities, svc_discover, tools/list', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer();
    c = await srv.connect();
  });
  afterAll(async () => srv.close());

  it('view returns a JPEG ≤ 1568 px and ≤ 1 MiB plus a JSON text block', async () => {
    const big = await c.call('svc_asset_import', 'import', {
      data: demoFile('images/text/craft-beer.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'craft-beer.jpg',
    });
    const v = await c.call('svc_assets', 'view', { asset_id: big.structured.asset_id });
    expect(v.error).toBeUndefined();
    const img = v.content.find((b) => b.type === 'image') as { data: string; mimeType: string };
    expect(img.mimeType).toBe('image/jpeg');
    const bytes = Buffer.from(img.data, 'base64');
    expect(bytes.length).toBeLessThanOrEqual(1024 * 1024);
    const meta = await sharp(bytes).metadata();
    expect(meta.format).toBe('jpeg');
    expect(Math.max(meta.width, meta.height)).toBe(1568);
    const facts = JSON.parse(v.content.find((b) => b.type === 'text')!.text) as unknown;
    expect(facts).toEqual({
      asset_id: big.structured.asset_id,
      url: big.structured.url,
      width: big.structured.width,
      height: big.structured.height,
      name: 'craft-beer.jpg',
    });
    expect(v.structured).toMatchObject({ preview_width: meta.width, preview_height: meta.height, preview_bytes: bytes.length });
  });

  it('views of one image share one encoding: a burst of views and a later view cost one image operation and return the same JPEG', async () => {
    const r = await c.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/wood_anemones.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'anemones.jpg',
    });
    const id = r.structured.asset_id as string;
    const run = vi.spyOn(srv.app.library.images, 'run');
    try {
      const views = await Promise.all(Array.from({ length: 5 }, () => c.call('svc_assets', 'view', { asset_id: id })));
      views.push(await c.call('svc_assets', 'view', { asset_id: id }));
      const jpegs = views.map((v) => (v.content.find((b) => b.type === 'image') as { data: string }).data);
      expect(new Set(jpegs).size).toBe(1);
      // only the view lane counts: enrichment of the import may use the pool meanwhile
      expect(run.mock.calls.filter(([, priority]) => priority === IMAGE_PRIORITY.view)).toHaveLength(1);
    } finally {
      run.mockRestore();
    }
  });

  it('view never enlarges small images and keeps EXIF orientation', async () => {
    const small = await c.call('svc_asset_import', 'import', {
      data: demoFile('images/metadata/portrait-orientation-6.jpg').toString('base64'),
      mime_type: 'image/jpeg',
    });
    const v = await c.call('svc_assets', 'view', { asset_id: small.structured.asset_id });
    const meta = await sharp(Buffer.from((v.content[0] as { data: string }).data, 'base64')).metadata();
    expect([meta.width, meta.height]).toEqual([small.structured.width, small.structured.height]);
    // Stored as 700×840 pixels with EXIF orientation 6 (rotate 90°): displayed, and reported, as 840×700.
    expect([small.structured.width, small.structured.height]).toEqual([840, 700]);
  });

  it('view of a missing asset is not_found; bad ids are invalid', async () => {
    expect((await c.call('svc_assets', 'view', { asset_id: '22222222-2222-4222-8222-222222222222' })).error).toMatchObject({
      code: 'not_found',
      field: 'args.asset_id',
    });
    expect((await c.call('svc_assets', 'view', { asset_id: 'abc' })).error).toMatchObject({
      code: 'invalid_argument',
      field: 'args.asset_id',
    });
    expect((await c.call('svc_assets', 'view', {})).error).toMatchObject({ code: 'invalid_argument', field: 'args.asset_id' });
  });

  it('capabilities lists the local provider entry', async () => {
    const r = await c.call('svc_assets', 'capabilities', {});
    const caps = r.structured.capabilities as { provider: string; operations: string[]; credits: number }[];
    expect(caps.find((x) => x.provider === 'local')).toMatchObject({ operations: ['generate', 'edit'], credits: 0 });
    expect(r.text).toContain('local/');
  });

  it("discover lists actions without schemas, resolves former names and gives one action's full JSON Schema", async () => {
    const all = await c.call('svc_discover', 'discover', {});
    const actions = all.structured.actions as { router: string; action: string; former_names: string[]; args_schema?: unknown }[];
    expect(actions.some((x) => x.router === 'svc_asset_library' && x.action === 'search')).toBe(true);
    expect(actions.find((x) => x.action === 'scope')).toMatchObject({ router: 'svc_discover' });
    expect(actions.every((x) => x.args_schema === undefined)).toBe(true);
    // panel-only actions are offered to clients that render panels, as in tools/list
    expect(actions.some((x) => x.router === 'svc_asset_panel')).toBe(false);
    // one action named: its full schema, deprecated alias included
    const one = await c.call('svc_discover', 'discover', { query: 'search_assets' });
    const search = (one.structured.actions as { action: string; args_schema: { properties: Record<string, unknown> } }[])[0]!;
    expect(search.action).toBe('search');
    expect(Object.keys(search.args_schema.properties)).toEqual(
      expect.arrayContaining(['query', 'mode', 'theme_id', 'brand_kit_id', 'cursor', 'limit']),
    );
    for (const [name, router, action] of [
      ['search_assets', 'svc_asset_library', 'search'],
      ['import_asset', 'svc_asset_import', 'import'],
      ['view_asset', 'svc_assets', 'view'],
      ['svc_asset_library', 'svc_asset_library', 'search'],
      ['list_themes', 'svc_discover', 'scope'],
    ]) {
      const r = await c.call('svc_discover', 'discover', { query: name, include_schemas: false });
      const first = (r.structured.actions as { router: string; action: string; args_schema?: unknown }[])[0];
      expect(first, name).toMatchObject({ router, action });
      expect(first?.args_schema).toBeUndefined();
      expect(r.text).toContain(router);
    }
    const none = await c.call('svc_discover', 'discover', { query: 'teleport_spaceship' });
    expect(none.structured.total).toBe(0);
  });

  it('lists router tools with truthful annotations and an {action, args} schema', async () => {
    const { tools } = await c.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    // hints equal to MCP's defaults are left out (ToolAnnotations: readOnly false, destructive true, idempotent false, openWorld true)
    const hints = (name: string): Record<string, unknown> => ({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
      ...byName.get(name)?.annotations,
    });
    expect(hints('svc_asset_library')).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(hints('svc_asset_import')).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    expect(hints('svc_asset_manage')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints('svc_discover').readOnlyHint).toBe(true);
    const schema = byName.get('svc_asset_library')!.inputSchema as unknown as { properties: { action: { enum: string[] } } };
    expect(schema.properties.action.enum).toContain('search');
  });

  it('answers unknown actions and misplaced args with structured errors', async () => {
    const r = await c.call('svc_assets', 'explode', {});
    expect(r.error).toMatchObject({ code: 'invalid_argument', field: 'action' });
    expect(r.error?.message).toContain('capabilities');
    const flat = (await c.client.callTool({ name: 'svc_assets', arguments: { action: 'view', asset_id: 'x' } })) as unknown as {
      isError: boolean;
      structuredContent: { error: { field: string } };
    };
    expect(flat.isError).toBe(true);
    expect(flat.structuredContent.error.field).toBe('asset_id');
    await expect(c.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/not found/);
  });
});
