import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, createWorkspace } from '../../server/tenancy/admin.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';
import { APP, begin, sendChunk, uploadFile } from './upload-helpers.ts';

const FALCON = demoFile('images/nature/prairie_falcon.jpg');
const MONGOLELS = demoFile('images/metadata/mongolels.jpg');
const PLOT = demoFile('images/formats/density_plot.png');

describe('svc_asset_import attachments over staged uploads', () => {
  let srv: TestServer;
  let c: TestClient;
  let other: TestClient;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } }); // enrichment (OCR, vectors) is not under test here
    c = await srv.connect();
    other = await srv.connect((await createTenant(srv.app.library.tenancy, 'Other tenant')).api_key);
  });
  afterAll(async () => srv.close());

  const stage = async (client: TestClient, bytes: Buffer, name: string, meta: Record<string, unknown> = {}): Promise<string> => {
    const { id, complete } = await uploadFile(client, bytes, name, { import: false, meta });
    expect(complete.error).toBeUndefined();
    expect(complete.structured).toMatchObject({ asset: null, session: { status: 'staged', upload_id: id } });
    expect(complete.text).toContain(`"attachment_id": "${id}"`);
    return id;
  };
  const total = async (): Promise<number> =>
    (await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id })).structured.total as number;

  it('imports a batch with per-item results in request order: mixed success and failure, foreign ids as missing', async () => {
    const falcon = await stage(c, FALCON, 'falcon.jpg', { alt_text: 'Prairie falcon on a post', tags: ['bird'] });
    const mongolels = await stage(c, MONGOLELS, 'mongolels.jpg');
    const text = await stage(c, Buffer.from('%PDF-1.4 not an image at all '.repeat(20)), 'scan.heic');
    const foreign = await stage(other, PLOT, 'plot.png');
    const unfinished = (await begin(c, PLOT, 'plot.png')).upload_id as string;
    expect(await total()).toBe(0); // staging creates no assets

    const r = await c.call('svc_asset_import', 'import', {
      attachments: [
        { attachment_id: falcon },
        { attachment_id: mongolels, filename: 'mongolels-portrait.jpg', alt_text: 'Portrait', tags: ['people'], purpose: 'hero_bg' },
        { attachment_id: foreign },
        { attachment_id: unfinished },
        { attachment_id: 'not-a-known-id' },
        { attachment_id: text },
      ],
      tags: ['batch'],
    });
    expect(r.isError).toBe(false);
    expect(r.structured).toMatchObject({ imported: 2, failed: 4 });
    const items = r.structured.items as {
      attachment_id: string;
      status: string;
      asset: Record<string, unknown> | null;
      error: { code: string; field: string; message: string } | null;
    }[];
    expect(items.map((i) => [i.attachment_id, i.status])).toEqual([
      [falcon, 'imported'],
      [mongolels, 'imported'],
      [foreign, 'failed'],
      [unfinished, 'failed'],
      ['not-a-known-id', 'failed'],
      [text, 'failed'],
    ]);
    // Metadata typed at upload time is kept; the attachment's own fields win.
    expect(items[0]!.asset).toMatchObject({
      name: 'falcon.jpg',
      alt_text: 'Prairie falcon on a post',
      tags: ['bird'],
      deduplicated: false,
    });
    expect(items[1]!.asset).toMatchObject({ name: 'mongolels-portrait.jpg', alt_text: 'Portrait', tags: ['people'], purpose: 'hero_bg' });
    // A foreign id fails exactly like a random one.
    expect(items[2]!.error).toEqual({
      code: 'not_found',
      field: 'args.attachments[2].attachment_id',
      message: expect.stringContaining('does not exist'),
    });
    expect(items[4]!.error?.code).toBe(items[2]!.error?.code);
    expect(items[4]!.error?.message.replace('not-a-known-id', 'X')).toBe(items[2]!.error?.message.replace(foreign, 'X'));
    expect(items[3]!.error).toMatchObject({ code: 'not_found', field: 'args.attachments[3].attachment_id' });
    expect(items[5]!.error).toMatchObject({ code: 'invalid_argument', field: 'args.attachments[5]' });
    expect(r.text).toContain('2 imported, 4 failed.');
    expect(await total()).toBe(2);
    // The other tenant's library is untouched and its staged upload still works for it.
    const own = await other.call('svc_asset_import', 'import', { attachments: [{ attachment_id: foreign }] });
    expect(own.structured).toMatchObject({ imported: 1, failed: 0 });
    // Importing the same attachment again deduplicates.
    const again = await c.call('svc_asset_import', 'import', { attachments: [{ attachment_id: falcon }] });
    expect((again.structured.items as { asset: { deduplicated: boolean; asset_id: string } }[])[0]!.asset).toMatchObject({
      deduplicated: true,
      asset_id: items[0]!.asset!.asset_id,
    });
    expect(await total()).toBe(2);
  });

  it('panel-only actions re-check scope: another tenant or an ungranted workspace sees not_found', async () => {
    const s = await begin(c, FALCON, 'scoped.jpg', { tags: ['scoped'] });
    const id = s.upload_id as string;
    await sendChunk(c, id, FALCON, s.chunk_size_bytes as number, 0);
    for (const [action, extra] of [
      ['status', {}],
      ['complete', {}],
      ['abort', {}],
      ['chunk', { index: 0, data: FALCON.subarray(0, 10).toString('base64') }],
    ] as const) {
      const r = await other.call(APP, action, { upload_id: id, ...extra });
      expect(r.error, action).toMatchObject({ code: 'not_found', field: 'args.upload_id' });
    }
    const foreignWs = await other.call(APP, 'status', { upload_id: id, workspace_id: srv.tenant.workspace_id });
    expect(foreignWs.error).toMatchObject({ code: 'not_found', field: 'args.workspace_id' });

    // Same tenant, second workspace: the key granted both must name the workspace; the session belongs to the first.
    const ws2 = await createWorkspace(srv.app.library.tenancy, srv.tenant.tenant_id, 'Second', { grantKeys: false });
    const both = await srv.connect(
      (await createApiKey(srv.app.library.tenancy, srv.tenant.tenant_id, { workspaceIds: [srv.tenant.workspace_id, ws2.workspace_id] }))
        .api_key,
    );
    const ambiguous = await both.call(APP, 'status', { upload_id: id });
    expect(ambiguous.error).toMatchObject({ code: 'ambiguous_scope', field: 'args.workspace_id' });
    const wrongWs = await both.call(APP, 'status', { upload_id: id, workspace_id: ws2.workspace_id });
    expect(wrongWs.error).toMatchObject({ code: 'not_found', field: 'args.upload_id' });
    const rightWs = await both.call(APP, 'status', { upload_id: id, workspace_id: srv.tenant.workspace_id });
    expect(rightWs.structured).toMatchObject({ upload_id: id, received_chunks: [0] });
    const onlyWs2 = await srv.connect(
      (await createApiKey(srv.app.library.tenancy, srv.tenant.tenant_id, { workspaceIds: [ws2.workspace_id] })).api_key,
    );
    const ungranted = await onlyWs2.call(APP, 'status', { upload_id: id, workspace_id: srv.tenant.workspace_id });
    expect(ungranted.error).toMatchObject({ code: 'not_found', field: 'args.workspace_id' });
    const viaImport = await onlyWs2.call('svc_asset_import', 'import', { attachments: [{ attachment_id: id }] });
    expect(viaImport.structured).toMatchObject({ imported: 0, failed: 1 });
    // The owner is unaffected by all of that.
    expect((await c.call(APP, 'status', { upload_id: id })).structured.received_chunks).toEqual([0]);
  });
});
