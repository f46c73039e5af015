import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';
import { uploadFile } from './upload-helpers.ts';

/** A distinct small PNG per call (identical bytes would deduplicate). */
let shade = 0;
const png = (): Promise<Buffer> =>
  sharp({ create: { width: 8, height: 8, channels: 3, background: { r: shade++, g: 40, b: 90 } } })
    .png()
    .toBuffer();

/** Issue 34 item 1: names are safe to hand on; control characters never reach tags or alt text. */
describe('safe file names on import and upload', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
  });
  afterAll(() => srv.close());

  it.each([
    ['../../etc/passwd', 'passwd.png', ['extension', 'path']],
    ['..\\..\\windows\\win.ini', 'win.ini.png', ['extension', 'path']],
    ['/etc/passwd', 'passwd.png', ['extension', 'path']],
    ['%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'passwd.png', ['decoded', 'extension', 'path']],
    ['report\u202Egnp.jpg', 'reportgnp.png', ['characters', 'extension']],
    [`${'a'.repeat(251)}.png`, `${'a'.repeat(251)}.png`, undefined],
  ])('import data with filename %j is stored as %j', async (filename, name, changed) => {
    const r = await c.call('svc_asset_import', 'import', { data: (await png()).toString('base64'), mime_type: 'image/png', filename });
    expect(r.error).toBeUndefined();
    expect(r.structured.name).toBe(name);
    expect((r.structured.name_changed as string[] | undefined)?.slice().sort()).toEqual(changed);
  });

  it('a name over 255 bytes is cut, keeping the extension', async () => {
    const filename = `${'ü'.repeat(127)}.png`; // 254 + 4 bytes; the schema's 255 characters allow it
    const r = await c.call('svc_asset_import', 'import', { data: (await png()).toString('base64'), mime_type: 'image/png', filename });
    expect(r.error).toBeUndefined();
    expect(Buffer.byteLength(r.structured.name as string)).toBeLessThanOrEqual(255);
    expect(r.structured.name).toMatch(/^ü+\.png$/);
    expect(r.structured.name_changed).toEqual(['length']);
  });

  it('an upload named ../../etc/passwd is stored as passwd.png and says so', async () => {
    const { complete } = await uploadFile(c, await png(), '../../etc/passwd.png');
    expect(complete.error).toBeUndefined();
    const asset = (complete.structured.asset ?? complete.structured) as Record<string, unknown>;
    expect(asset.name).toBe('passwd.png');
    expect(asset.name_changed).toEqual(['path']);
  });

  it('control and bidi characters are stripped from tags and alt text', async () => {
    const r = await c.call('svc_asset_import', 'import', {
      data: (await png()).toString('base64'),
      mime_type: 'image/png',
      filename: 'tagged.png',
      alt_text: 'red\u0000 door\r\nat dusk\u202E',
      tags: ['sun\u0007set', '\u2066blue\u2069'],
    });
    expect(r.error).toBeUndefined();
    expect(r.structured.alt_text).toBe('red door at dusk');
    expect(r.structured.tags).toEqual(['sunset', 'blue']);
    expect(r.structured.name_changed).toBeUndefined();
  });

  it('update applies the same rules to a new filename', async () => {
    const imported = await c.call('svc_asset_import', 'import', { data: (await png()).toString('base64'), mime_type: 'image/png' });
    const r = await c.call('svc_asset_manage', 'update', { asset_id: imported.structured.asset_id, filename: '../secret/x.gif' });
    expect(r.error).toBeUndefined();
    expect(r.structured.name).toBe('x.png');
    const bad = await c.call('svc_asset_manage', 'update', { asset_id: imported.structured.asset_id, filename: '../..' });
    expect(bad.error).toMatchObject({ code: 'invalid_argument', field: 'args.filename' });
  });
});
