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

/** Issue 36 finding 4: one caller's slow SVG documents stop at a time limit and hold up no one else's photos. */
describe('SVG render time limit', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      env: { ATELIER_ENRICHMENT: '0', ATELIER_SVG_RENDER_TIMEOUT_MS: '1500', ATELIER_IMPORT_MAX_ACTIVE: '4' },
    });
  });
  afterAll(async () => srv.close());

  // 278 bytes of feTurbulence over a 4096 × 4096 canvas (within the SVG pixel limit): minutes of librsvg work
  const bomb = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="4096" height="4096"><filter id="f"><feTurbulence baseFrequency="0.9" numOctaves="10"/></filter><rect width="100%" height="100%" filter="url(#f)"/></svg>',
  );

  it('stops a slow SVG, refuses SVGs beyond its share, and imports another tenant photo meanwhile', async () => {
    const noisy = await srv.connect();
    const { createTenant } = await import('../../server/tenancy/admin.ts');
    const other = await createTenant(srv.app.library.tenancy, 'Quiet tenant');
    const quiet = await srv.connect(other.api_key);
    const started = Date.now();
    const bombs = Array.from({ length: 4 }, (_, i) =>
      noisy.call('svc_asset_import', 'import', { data: bomb.toString('base64'), mime_type: 'image/svg+xml', filename: `b${i}.svg` }),
    );
    await new Promise((r) => setTimeout(r, 300));
    const photo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const q = await quiet.call('svc_asset_import', 'import', { data: photo.toString('base64'), mime_type: 'image/png', filename: 'p.png' });
    expect(q.error).toBeUndefined();
    expect(q.structured.deduplicated).toBe(false);
    const answers = await Promise.all(bombs);
    const codes = answers.map((a) => a.error?.code).sort();
    // half the 4 import slots at most for SVG: one renders, one waits, the others are told to retry
    expect(codes).toEqual(['busy', 'busy', 'invalid_argument', 'invalid_argument']);
    for (const a of answers.filter((x) => x.error?.code === 'invalid_argument'))
      expect(a.error).toMatchObject({ field: 'args.data', message: expect.stringContaining('longer than 1500 ms') });
    expect(Date.now() - started).toBeLessThan(60_000);
    // nothing was stored for the refused documents, and the renderer still works for a normal SVG
    const ok = await noisy.call('svc_asset_import', 'import', {
      data: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="600"><circle cx="450" cy="300" r="200" fill="#c33"/></svg>',
      ).toString('base64'),
      mime_type: 'image/svg+xml',
      filename: 'ok.svg',
    });
    expect(ok.error).toBeUndefined();
    expect(ok.structured).toMatchObject({ format: 'svg', width: 900, height: 600 });
    const view = await noisy.call('svc_assets', 'view', { asset_id: ok.structured.asset_id });
    expect(view.content.some((c) => c.type === 'image')).toBe(true);
  }, 90_000);
});
