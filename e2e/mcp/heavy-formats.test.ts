import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

/** Issue 36 finding 4 (part): SVG and GIF, whose cost per pixel dwarfs a photo's, have a lower pixel limit. */
describe('pixel limits of SVG and GIF', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
  });
  afterAll(async () => srv.close());

  const svg = (w: number, h: number) =>
    Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#2a7"/></svg>`);

  it('refuses an SVG canvas beyond 4096 × 4096 px and accepts one within it', async () => {
    const big = await c.call('svc_asset_import', 'import', {
      data: svg(5000, 5000).toString('base64'),
      mime_type: 'image/svg+xml',
      filename: 'big.svg',
    });
    expect(big.error).toMatchObject({
      code: 'invalid_argument',
      field: 'args.data',
      message: expect.stringContaining('limit for SVG and GIF is 16777216 px'),
    });
    const ok = await c.call('svc_asset_import', 'import', {
      data: svg(1200, 800).toString('base64'),
      mime_type: 'image/svg+xml',
      filename: 'ok.svg',
    });
    expect(ok.error).toBeUndefined();
  });

  it('counts every frame of a GIF against the limit', async () => {
    // 3 frames of 2400 × 2400 = 17.3 MP in all (a 5.8 MP photo would pass)
    // (frames differ: the GIF encoder folds identical ones)
    const frames = await Promise.all(
      ['#884422', '#224488', '#448822'].map((background) =>
        sharp({ create: { width: 2400, height: 2400, channels: 3, background } })
          .png()
          .toBuffer(),
      ),
    );
    const paged = await sharp(frames, { join: { animated: true } })
      .gif()
      .toBuffer();
    expect((await sharp(paged).metadata()).pages).toBe(3);
    const r = await c.call('svc_asset_import', 'import', { data: paged.toString('base64'), mime_type: 'image/gif', filename: 'anim.gif' });
    expect(r.error).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('× 3 frames') });
  });
});
