import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobShaOf, demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';
import { createTenant } from '../../server/tenancy/admin.ts';
import { APP, sha256, uploadFile } from './upload-helpers.ts';

describe('import admission: a saturated image pool answers busy and loses nothing', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    // Two imports at a time, so one per tenant while it is alone (its fair share: all but one of the 2); the first test
    // holds the tenant's one slot itself, as a long import would.
    srv = await startTestServer({ env: { ATELIER_IMPORT_MAX_ACTIVE: '2', ATELIER_ENRICHMENT: '0', ATELIER_ALLOW_PRIVATE_URLS: '1' } });
    c = await srv.connect();
  });
  afterAll(async () => {
    await srv.close();
  });
  const scope = (): { tenantId: string; workspaceId: string } => ({ tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id });
  const total = async (): Promise<number> =>
    (await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id })).structured.total as number;
  const blob = async (url: string): Promise<Buffer> => srv.app.library.blobs.get(await blobShaOf(srv, url));

  it('import (data, url, attachments) and upload complete are refused with busy while the pool is full; retried, they import intact', async () => {
    const photo = demoFile('images/text/japanese-shop.jpg');
    const upload = demoFile('images/nature/prairie_falcon.jpg');
    const attachment = demoFile('images/nature/silver_fir.jpg');
    const held = srv.app.library.images.admit(srv.tenant.tenant_id);

    const data = {
      data: photo.toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'japanese-shop.jpg',
      alt_text: 'Shop front in Kyoto',
    };
    const busy = await c.call('svc_asset_import', 'import', data);
    expect(busy.error).toMatchObject({ code: 'busy', field: null, details: { active_imports: 1 } });
    expect(busy.error?.details?.retry_after_ms).toEqual(expect.any(Number));
    expect(busy.error?.details?.retry_after_ms as number).toBeGreaterThan(0);
    expect(busy.error?.message).toMatch(/nothing was imported/);
    const viaUrl = await c.call('svc_asset_import', 'import', { url: 'http://127.0.0.1:9/never-fetched.jpg' });
    expect(viaUrl.error).toMatchObject({ code: 'busy' }); // refused before the download

    // An upload receives its chunks while the pool is full; only complete (the import) is refused.
    const staged = await uploadFile(c, attachment, 'silver_fir.jpg', { import: false });
    expect(staged.complete.error).toBeUndefined();
    const viaAttachment = await c.call('svc_asset_import', 'import', { attachments: [{ attachment_id: staged.id }] });
    expect(viaAttachment.error).toMatchObject({ code: 'busy' });
    const up = await uploadFile(c, upload, 'prairie_falcon.jpg', { meta: { alt_text: 'Falcon on a post' } });
    expect(up.complete.error).toMatchObject({ code: 'busy', field: null });
    const after = await c.call(APP, 'status', { upload_id: up.id });
    expect(after.structured).toMatchObject({ status: 'receiving', asset_id: null, error: null, received_bytes: upload.length });

    // Nothing half-imported: no asset, no blob of the refused bytes.
    expect(await total()).toBe(0);
    for (const b of [photo, upload, attachment]) {
      expect(await srv.app.library.assets.bySourceSha(scope(), sha256(b))).toBeUndefined();
      expect(await srv.app.library.blobs.has(sha256(b))).toBe(false);
    }

    held.release();
    const retried = await c.call('svc_asset_import', 'import', data);
    expect(retried.error).toBeUndefined();
    expect(retried.structured).toMatchObject({
      format: 'jpeg',
      width: 4217,
      height: 2817,
      deduplicated: false,
      alt_text: 'Shop front in Kyoto',
    });
    expect((await blob(retried.structured.url as string)).equals(photo)).toBe(true);
    expect((retried.structured.delivery as { variants: { width: number }[] }).variants.map((v) => v.width)).toEqual([
      320, 640, 960, 1280, 1920, 2560,
    ]);

    const completed = await c.call(APP, 'complete', { upload_id: up.id });
    expect(completed.error).toBeUndefined();
    expect(completed.structured.session).toMatchObject({ status: 'imported' });
    const asset = completed.structured.asset as {
      asset_id: string;
      url: string;
      width: number;
      height: number;
      alt_text: string;
      delivery: { thumbnail_url: string };
    };
    expect(asset).toMatchObject({ width: 800, height: 533, alt_text: 'Falcon on a post' });
    expect((await blob(asset.url)).equals(upload)).toBe(true);
    expect(await sharp(await blob(asset.delivery.thumbnail_url)).metadata()).toMatchObject({ format: 'jpeg', width: 320, height: 213 });

    const attached = await c.call('svc_asset_import', 'import', { attachments: [{ attachment_id: staged.id }] });
    expect(attached.structured).toMatchObject({ imported: 1, failed: 0 });
    expect(await total()).toBe(3);
    expect(srv.app.library.images.stats()).toEqual({ running: 0, waiting: 0, activeImports: 0 });
  });

  it('an identical-bytes import is answered from the library even while the pool is full', async () => {
    const photo = demoFile('images/text/japanese-shop.jpg');
    const held = srv.app.library.images.admit(srv.tenant.tenant_id);
    try {
      const again = await c.call('svc_asset_import', 'import', { data: photo.toString('base64'), mime_type: 'image/jpeg' });
      expect(again.error).toBeUndefined();
      expect(again.structured).toMatchObject({ deduplicated: true });
    } finally {
      held.release();
    }
  });

  it('sends MCP progress notifications while an import is processed', async () => {
    const messages: string[] = [];
    const bytes = await sharp(demoFile('images/nature/tanners_ridge.jpg')).resize(700).jpeg().toBuffer();
    const r = await c.client.callTool(
      {
        name: 'svc_asset_import',
        arguments: { action: 'import', args: { data: bytes.toString('base64'), mime_type: 'image/jpeg', filename: 'ridge.jpg' } },
      },
      { onprogress: (p) => void messages.push(p.message ?? '') },
    );
    expect(r.isError).toBeFalsy();
    expect(messages.some((m) => /derived 4 renditions/.test(m))).toBe(true);
  });

  it("one tenant's slow imports hold only its fair share: another tenant's import is admitted and completes", async () => {
    // An origin that answers nothing until the test says so: the URL imports of tenant A hold their slots meanwhile.
    const waiting: http.ServerResponse[] = [];
    let arrived: () => void = () => undefined;
    const origin = http.createServer((_req, res) => {
      // only the first download is held: any other answers at once (404), so a wrongly admitted import ends
      if (waiting.length > 0) return void res.writeHead(404).end();
      waiting.push(res);
      arrived();
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    try {
      const first = new Promise<void>((r) => (arrived = r));
      const slow = c.call('svc_asset_import', 'import', { url: `${base}/slow-1.jpg` });
      await first; // admitted: its download has started
      // A's second import is past its share (all but one of the server's 2 slots while it is alone), though a slot is free.
      const second = await c.call('svc_asset_import', 'import', { url: `${base}/slow-2.jpg` });
      expect(second.error).toMatchObject({ code: 'busy', details: { active_imports: 1, tenant_active_imports: 1, tenant_share: 1 } });
      expect(second.error?.message).toMatch(/fair share/);
      expect(waiting).toHaveLength(1);

      const other = await createTenant(srv.app.library.tenancy, 'Other tenant');
      const b = await srv.connect(other.api_key);
      const photo = await sharp(demoFile('images/nature/tanners_ridge.jpg')).resize(500).jpeg().toBuffer();
      const imported = await b.call('svc_asset_import', 'import', { data: photo.toString('base64'), mime_type: 'image/jpeg' });
      expect(imported.error).toBeUndefined();
      expect(imported.structured).toMatchObject({ width: 500, deduplicated: false });
      expect(waiting).toHaveLength(1); // A's import still holds its slot

      const bytes = await sharp(demoFile('images/nature/silver_fir.jpg')).resize(400).jpeg().toBuffer();
      waiting[0]!.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': bytes.length }).end(bytes);
      expect((await slow).structured).toMatchObject({ width: 400, deduplicated: false });
      expect(srv.app.library.images.stats().activeImports).toBe(0);
    } finally {
      for (const res of waiting) if (!res.writableEnded) res.destroy();
      await new Promise((r) => origin.close(r));
    }
  });
});
