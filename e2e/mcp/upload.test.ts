import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFile, REPO_ROOT, startTestServer, storedObjectCount, type TestClient, type TestServer } from './harness.ts';
import { smallHeic } from './fixtures.ts';
import { APP, begin, sendChunk, sha256, stagedIds, uploadFile } from './upload-helpers.ts';

const JPEG = demoFile('images/text/craft-beer.jpg'); // 1.7 MB → 4 chunks of 512 KiB
const HEIC = smallHeic(); // 640×480, 44 KB → 1 chunk
const UI_CAPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

describe('svc_asset_upload and the chunked upload channel', () => {
  let srv: TestServer;
  let c: TestClient;
  const total = async (): Promise<number> =>
    (await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id })).structured.total as number;

  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } }); // enrichment (OCR, vectors) is not under test here
    c = await srv.connect();
  });
  afterAll(async () => srv.close());

  it('upload returns at once; the text fits a panel host and explains alternatives to a plain client', async () => {
    const plain = await c.call('svc_asset_upload', 'upload', {});
    expect(plain.isError).toBe(false);
    // without panels nothing is awaited: the status says so (it used to say awaiting_user)
    expect(plain.structured).toMatchObject({
      status: 'no_panel',
      workspace_id: srv.tenant.workspace_id,
      theme_id: null,
      panel_available: false,
    });
    expect(plain.structured.limits).toMatchObject({ chunk_size_bytes: 512 * 1024, max_file_bytes: srv.config.maxImportBytes });
    expect(plain.text).toContain('no upload panel can open');
    expect(plain.text).toMatch(/svc_asset_import import \{"url"/);
    expect(plain.text).toMatch(/"attachments"/);

    const host = await srv.connect(undefined, UI_CAPS);
    const apps = await host.call('svc_asset_upload', 'upload', { theme_id: srv.tenant.theme_id });
    expect(apps.structured).toMatchObject({ status: 'awaiting_user', panel_available: true, theme_id: srv.tenant.theme_id });
    expect(apps.text).toContain('upload panel is open');
    expect(apps.text).toContain('asset_id, name and permanent URL');

    const foreignTheme = await c.call('svc_asset_upload', 'upload', { theme_id: '11111111-1111-4111-8111-111111111111' });
    expect(foreignTheme.error).toMatchObject({ code: 'not_found', field: 'args.theme_id' });
  });

  it('lists the channel as a panel-only tool (to MCP Apps clients only) and the upload tool as model-visible', async () => {
    expect((await c.client.listTools()).tools.map((t) => t.name)).not.toContain(APP);
    const { tools } = await (await srv.connect(undefined, UI_CAPS)).client.listTools();
    const app = tools.find((t) => t.name === APP);
    expect(app?._meta?.ui).toMatchObject({ visibility: ['app'] });
    expect((app?.inputSchema.properties?.action as { enum: string[] }).enum).toEqual([
      'begin',
      'chunk',
      'status',
      'complete',
      'list',
      'abort',
    ]);
    const upload = tools.find((t) => t.name === 'svc_asset_upload');
    expect(upload).toBeDefined();
    expect((upload?._meta?.ui as { visibility?: string[] } | undefined)?.visibility).toBeUndefined();
  });

  it('uploads a real JPEG in 512 KiB chunks sent out of order, with the user metadata', async () => {
    const { id, complete } = await uploadFile(c, JPEG, 'craft beer.jpg', {
      order: 'desc',
      meta: { mime_type: 'image/jpeg', alt_text: 'Three craft beer bottles', tags: ['beer', 'bottles'], purpose: 'hero_bg' },
    });
    expect(complete.error).toBeUndefined();
    const asset = complete.structured.asset as Record<string, unknown>;
    expect(asset).toMatchObject({
      name: 'craft beer.jpg',
      kind: 'image',
      format: 'jpeg',
      alt_text: 'Three craft beer bottles',
      tags: ['beer', 'bottles'],
      purpose: 'hero_bg',
      deduplicated: false,
      size_bytes: JPEG.length,
    });
    expect(complete.structured.session).toMatchObject({
      upload_id: id,
      status: 'imported',
      asset_id: asset.asset_id,
      chunk_count: 4,
      received_bytes: JPEG.length,
    });
    expect(complete.text).toContain(`asset_id ${asset.asset_id as string}`);
    expect(complete.text).toContain(asset.url as string);
    // The stored original is the uploaded file, byte for byte, under its permanent URL.
    const http = await srv.listen();
    const res = await fetch(String((asset.delivery as { original_url: string }).original_url).replace(/^https?:\/\/[^/]+/, http.url));
    expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(sha256(JPEG));
    const found = await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, query: 'craft beer', mode: 'filename' });
    expect((found.structured.assets as { id: string }[]).map((a) => a.id)).toContain(asset.asset_id);
    // complete is idempotent: the same asset again, nothing new.
    const again = await c.call(APP, 'complete', { upload_id: id });
    expect((again.structured.asset as { asset_id: string }).asset_id).toBe(asset.asset_id);
    expect(await total()).toBe(1);
  });

  it('uploads a real HEIC file and stores it as a PNG asset', async () => {
    const before = await total();
    const { complete } = await uploadFile(c, HEIC, 'IMG_2682.heic', { meta: { mime_type: 'image/heic' } });
    expect(complete.error).toBeUndefined();
    expect(complete.structured.asset).toMatchObject({
      format: 'png',
      converted_from: 'heic',
      name: 'IMG_2682.png',
      width: 640,
      height: 480,
      kind: 'image',
    });
    expect(await total()).toBe(before + 1);
    // The same bytes again are deduplicated through the import path.
    const dup = await uploadFile(c, HEIC, 'IMG_2682.heic');
    expect(dup.complete.structured.asset).toMatchObject({
      deduplicated: true,
      asset_id: (complete.structured.asset as { asset_id: string }).asset_id,
    });
    expect(await total()).toBe(before + 1);
  });

  it('list: a panel instance gets back the uploads it imported, scoped to its workspace', async () => {
    const ui = await srv.connect(undefined, UI_CAPS);
    const opened = await ui.call('svc_asset_upload', 'upload', {});
    const panel = opened.structured.panel_id as string;
    expect(panel).toMatch(/^[0-9a-f-]{36}$/);
    const small = demoFile('images/nature/silver_fir.jpg');
    const up = await uploadFile(ui, small, 'fir-from-panel.jpg', { meta: { panel_id: panel } });
    expect(up.complete.error).toBeUndefined();
    await uploadFile(ui, demoFile('images/nature/wood_anemones.jpg'), 'other.jpg'); // not from this panel
    const listed = await ui.call(APP, 'list', { panel_id: panel });
    expect(listed.error).toBeUndefined();
    const items = listed.structured.uploads as {
      session: { upload_id: string; status: string };
      asset: { name: string; asset_id: string };
    }[];
    expect(items.map((i) => [i.session.upload_id, i.session.status, i.asset.name])).toEqual([[up.id, 'imported', 'fir-from-panel.jpg']]);
    // another tenant learns nothing about the panel; a deleted asset drops out of the list
    const { createTenant } = await import('../../server/tenancy/admin.ts');
    const other = await srv.connect((await createTenant(srv.app.library.tenancy, 'Other')).api_key, UI_CAPS);
    expect((await other.call(APP, 'list', { panel_id: panel })).structured.uploads).toEqual([]);
    await ui.call('svc_asset_manage', 'delete', { asset_ids: [items[0]!.asset.asset_id] });
    expect((await ui.call(APP, 'list', { panel_id: panel })).structured.uploads).toEqual([]);
  });

  it('uploads real WebM, MP4 and MOV videos: stored as is, size read from the container, a decoded poster frame as thumbnail', async () => {
    const webm = fs.readFileSync(path.join(REPO_ROOT, 'e2e/fixtures/canvas-clip.webm'));
    // the same 320×180 clip in MP4 and QuickTime containers (remuxed, not re-encoded)
    const remux = async (format: 'mp4' | 'mov'): Promise<Buffer> => {
      const mb = await import('mediabunny');
      const output = new mb.Output({
        format: format === 'mp4' ? new mb.Mp4OutputFormat() : new mb.MovOutputFormat(),
        target: new mb.BufferTarget(),
      });
      const conv = await mb.Conversion.init({
        input: new mb.Input({ source: new mb.BufferSource(webm), formats: mb.ALL_FORMATS }),
        output,
      });
      await conv.execute();
      return Buffer.from(output.target.buffer!);
    };
    await srv.listen(); // the CDN serves the thumbnails
    const files: [string, Buffer, string][] = [
      ['canvas clip.webm', webm, 'webm'],
      ['canvas clip.mp4', await remux('mp4'), 'mp4'],
      ['canvas clip.mov', await remux('mov'), 'mov'],
    ];
    for (const [name, bytes, format] of files) {
      const { complete } = await uploadFile(c, bytes, name, { meta: { tags: ['clip'] } });
      expect(complete.error, name).toBeUndefined();
      const asset = complete.structured.asset as {
        kind: string;
        format: string;
        width: number;
        height: number;
        url: string;
        delivery: { thumbnail_url: string };
      };
      expect(asset, name).toMatchObject({ kind: 'video', format, width: 320, height: 180, name, size_bytes: bytes.length, tags: ['clip'] });
      // the thumbnail is a JPEG of a real frame (white text on a saturated hsl(h 70% 50%) background), not the video itself
      expect(asset.delivery.thumbnail_url).not.toBe(asset.url);
      const res = await fetch(asset.delivery.thumbnail_url);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      const thumb = await sharp(Buffer.from(await res.arrayBuffer())).stats();
      const means = thumb.channels.slice(0, 3).map((ch) => ch.mean);
      expect(Math.max(...means) - Math.min(...means), name).toBeGreaterThan(80);
    }
    const videos = await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, kind: 'video' });
    const found = videos.structured.assets as { name: string; thumbnail_url: string; url: string; orientation: string }[];
    expect(found.map((a) => a.name).sort()).toEqual(['canvas clip.mov', 'canvas clip.mp4', 'canvas clip.webm']);
    expect(found.every((a) => a.thumbnail_url !== a.url && a.orientation === 'landscape')).toBe(true);
  }, 120_000);

  it('rejects a sha256 mismatch at complete and a wrong-sized chunk, storing nothing', async () => {
    const assetsBefore = await total();
    const blobsBefore = await storedObjectCount(srv.app.library.blobs);
    const tampered = Buffer.from(JPEG);
    tampered[tampered.length - 10] = (tampered[tampered.length - 10] ?? 0) ^ 0xff;
    const { id, complete } = await uploadFile(c, tampered, 'tampered.jpg', { declared: JPEG });
    expect(complete.error).toMatchObject({ code: 'conflict', field: 'args.upload_id' });
    expect(complete.error?.message).toContain(`but begin declared ${sha256(JPEG)}`);
    const st = await c.call(APP, 'status', { upload_id: id });
    expect(st.structured).toMatchObject({ status: 'failed', received_chunks: [], asset_id: null, error: { code: 'conflict' } });
    expect(await stagedIds(srv.app)).not.toContain(id);
    const retry = await c.call(APP, 'complete', { upload_id: id });
    expect(retry.error).toMatchObject({ code: 'conflict', field: 'args.upload_id' });

    const s = await begin(c, JPEG, 'short.jpg');
    const short = await c.call(APP, 'chunk', { upload_id: s.upload_id, index: 0, data: JPEG.subarray(0, 1000).toString('base64') });
    expect(short.error).toMatchObject({ code: 'invalid_argument', field: 'args.data' });
    expect(short.error?.message).toContain('must be exactly 524288 bytes');
    const outside = await sendChunk(c, s.upload_id as string, JPEG, 512 * 1024, 3, { index: 9 });
    expect(outside.error).toMatchObject({ code: 'invalid_argument', field: 'args.index' });
    const early = await c.call(APP, 'complete', { upload_id: s.upload_id });
    expect(early.error).toMatchObject({ code: 'conflict', field: 'args.upload_id', details: { missing_chunks: [0, 1, 2, 3] } });
    const tooBig = await c.call(APP, 'begin', { filename: 'huge.jpg', size_bytes: srv.config.maxImportBytes + 1, sha256: sha256(JPEG) });
    expect(tooBig.error).toMatchObject({ code: 'invalid_argument', field: 'args.size_bytes' });
    const notMedia = await c.call(APP, 'begin', {
      filename: 'notes.pdf',
      mime_type: 'application/pdf',
      size_bytes: 10,
      sha256: sha256(JPEG),
    });
    expect(notMedia.error).toMatchObject({ code: 'invalid_argument', field: 'args.mime_type' });
    const badSha = await c.call(APP, 'begin', { filename: 'a.jpg', size_bytes: 10, sha256: 'abc' });
    expect(badSha.error).toMatchObject({ code: 'invalid_argument', field: 'args.sha256' });
    await c.call(APP, 'abort', { upload_id: s.upload_id });

    expect(await total()).toBe(assetsBefore);
    expect(await storedObjectCount(srv.app.library.blobs)).toBe(blobsBefore);
  });

  it('a verified file that is not an image or video fails at complete with nothing stored', async () => {
    const before = await total();
    const text = Buffer.from('just some text pretending to be a photo\n'.repeat(100));
    const { id, complete } = await uploadFile(c, text, 'photo.jpg');
    expect(complete.error).toMatchObject({ code: 'invalid_argument', field: 'args.upload_id' });
    expect(complete.error?.message).toContain('not a supported image');
    expect(await stagedIds(srv.app)).not.toContain(id);
    expect(await total()).toBe(before);
  });

  it('resumes an interrupted upload: begin again returns the received chunks, the rest completes it', async () => {
    const bytes = demoFile('images/text/book-beside-flowers.jpg'); // 1.58 MB → 4 chunks
    const first = await begin(c, bytes, 'book.jpg', { alt_text: 'A book beside flowers' });
    const id = first.upload_id as string;
    expect((await sendChunk(c, id, bytes, 512 * 1024, 0)).error).toBeUndefined();
    expect((await sendChunk(c, id, bytes, 512 * 1024, 2)).error).toBeUndefined();
    // The connection drops; a new session (a remounted panel) declares the same file again.
    await c.close();
    c = await srv.connect();
    const resumed = await begin(c, bytes, 'book.jpg', { alt_text: 'A book beside tulips', tags: ['book'] });
    expect(resumed).toMatchObject({
      upload_id: id,
      resumed: true,
      status: 'receiving',
      received_chunks: [0, 2],
      received_bytes: 2 * 512 * 1024,
    });
    const status = await c.call(APP, 'status', { upload_id: id });
    expect(status.structured.received_chunks).toEqual([0, 2]);
    // Resending a chunk is harmless.
    for (const i of [0, 1, 3]) expect((await sendChunk(c, id, bytes, 512 * 1024, i)).error).toBeUndefined();
    const done = await c.call(APP, 'complete', { upload_id: id });
    // Metadata given on resume (edited before Retry) wins over the first attempt's.
    expect(done.structured.asset).toMatchObject({
      name: 'book.jpg',
      alt_text: 'A book beside tulips',
      tags: ['book'],
      size_bytes: bytes.length,
    });
  });

  it('abort discards the bytes; later chunks are refused', async () => {
    const bytes = demoFile('images/text/japanese-shop.jpg');
    const s = await begin(c, bytes, 'shop.jpg');
    const id = s.upload_id as string;
    await sendChunk(c, id, bytes, 512 * 1024, 0);
    expect(await stagedIds(srv.app)).toContain(id);
    const ab = await c.call(APP, 'abort', { upload_id: id });
    expect(ab.structured).toMatchObject({ status: 'aborted', received_chunks: [] });
    expect(await stagedIds(srv.app)).not.toContain(id);
    const late = await sendChunk(c, id, bytes, 512 * 1024, 1);
    expect(late.error).toMatchObject({ code: 'conflict', field: 'args.upload_id' });
    // A new begin of the same file starts over instead of resuming the aborted session.
    const fresh = await begin(c, bytes, 'shop.jpg');
    expect(fresh).toMatchObject({ resumed: false, received_chunks: [] });
    expect(fresh.upload_id).not.toBe(id);
    await c.call(APP, 'abort', { upload_id: fresh.upload_id });
  });
});
