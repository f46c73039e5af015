import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';
import { APP, begin, sendChunk, stagedIds, uploadFile } from './upload-helpers.ts';

const JPEG = demoFile('images/text/japanese-shop.jpg'); // 900 KB → 2 chunks

describe('upload sessions expire', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    // The TTL must outlast staging a second file (the check that both are staged comes after it): 400 ms
    // did not on a loaded machine with staging on S3, and the abandoned session was swept first.
    srv = await startTestServer({ env: { ATELIER_UPLOAD_TTL_MS: '3000', ATELIER_UPLOAD_SWEEP_MS: '50', ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
  });
  afterAll(async () => srv.close());

  it('an abandoned upload and an unclaimed staged attachment are swept with their bytes; no asset appears', async () => {
    const open = await begin(c, JPEG, 'abandoned.jpg');
    const openId = open.upload_id as string;
    expect((await sendChunk(c, openId, JPEG, open.chunk_size_bytes as number, 0)).error).toBeUndefined();
    const staged = await uploadFile(c, demoFile('images/nature/silver_fir.jpg'), 'fir.jpg', { import: false });
    expect(staged.complete.structured).toMatchObject({ session: { status: 'staged' } });
    expect(await stagedIds(srv.app)).toEqual(expect.arrayContaining([openId, staged.id]));

    await vi.waitFor(async () => expect(await stagedIds(srv.app)).toEqual([]), { timeout: 15_000, interval: 50 });
    for (const id of [openId, staged.id]) {
      const st = await c.call(APP, 'status', { upload_id: id });
      expect(st.error).toMatchObject({ code: 'not_found', field: 'args.upload_id' });
    }
    const late = await sendChunk(c, openId, JPEG, open.chunk_size_bytes as number, 1);
    expect(late.error).toMatchObject({ code: 'not_found', field: 'args.upload_id' });
    const attach = await c.call('svc_asset_import', 'import', { attachments: [{ attachment_id: staged.id }] });
    expect(attach.structured).toMatchObject({ imported: 0, failed: 1 });
    const search = await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id });
    expect(search.structured.total).toBe(0);
    // A fresh begin of the abandoned file starts from zero.
    const again = await begin(c, JPEG, 'abandoned.jpg');
    expect(again).toMatchObject({ resumed: false, received_chunks: [] });
  });

  it('the sweeper also removes staging directories no session owns (e.g. after a crash)', async () => {
    const orphan = '0b9f6f54-2f83-4c53-9d8e-3c1b0f2b9a11';
    // the sweeper runs every 50 ms and may remove the orphan's directory while the part is still being
    // written (its rename then finds no directory): that is the removal this test waits for
    await srv.app.staging.writePart(orphan, 0, Buffer.alloc(10)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await vi.waitFor(async () => expect(await stagedIds(srv.app)).not.toContain(orphan), { timeout: 5000, interval: 50 });
  });
});
