import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';
import { threadsOfThisProcess } from './threads.ts';

// Linux: a thread's nice value is its own (setpriority(2)).
describe.runIf(process.platform === 'linux')('image work yields the CPU to the thread answering requests', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    // default ATELIER_IMAGE_NICE (10); no enrichment, so no OCR thread (nice 19) is in the picture
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
  });
  afterAll(async () => {
    await srv.close();
  });
  it('runs libvips workers and the HEIC decoder at nice 10 while the main thread keeps nice 0', async () => {
    const jpeg = await c.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/prairie_falcon.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'prairie_falcon.jpg',
    });
    expect(jpeg.error).toBeUndefined();
    const heic = await c.call('svc_asset_import', 'import', {
      data: demoFile('images/formats/IMG_2682.heic').toString('base64'),
      mime_type: 'image/heic',
      filename: 'IMG_2682.heic',
    });
    expect(heic.error).toBeUndefined();
    expect(heic.structured).toMatchObject({ converted_from: 'heic' });

    const all = threadsOfThisProcess();
    const vips = all.filter((t) => t.comm === 'libvips worker');
    expect(vips.length).toBeGreaterThan(0);
    expect(vips.map((t) => t.nice)).toEqual(vips.map(() => 10));
    // the HEIC decoder is a Node worker thread (idle for 30 s before it exits): the one other thread at 10
    expect(all.filter((t) => t.comm !== 'libvips worker' && t.nice === 10)).toHaveLength(1);
    expect(all.find((t) => t.tid === process.pid)?.nice).toBe(0);

    // the imported images are whole: a search lists both, and a view decodes the converted one
    const found = await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id });
    expect(found.structured.total).toBe(2);
    const v = await c.call('svc_assets', 'view', { asset_id: (heic.structured as { id: string }).id });
    expect(v.error).toBeUndefined();
  });
});
