import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEnrichment, type EnrichedAsset as A } from './enrichment-helpers.ts';
import { REPO_ROOT, startTestServer, type CallResult, type TestClient, type TestServer } from './harness.ts';

/** The tiny CLIP-shaped model scripts/image-model/make-clip-model.py exports: its embeddings follow the mean colour. */
const TINY_MODEL = path.join(REPO_ROOT, 'e2e/fixtures/image-model/tiny-clip');

interface ImageModelReport {
  model: string;
  status: string;
  reason: string | null;
}
const req = (r: CallResult) =>
  r.structured.request as { mode: string; match: string; degraded_from: string | null; image_model?: ImageModelReport };
const matches = (r: CallResult): A[] => r.structured.assets as A[];
const names = (r: CallResult): string[] => matches(r).map((a) => a.name);

/** A photo-like picture: `rgb` with a lighter band and some noise, so its colour is measured, not its name. */
async function picture(rgb: [number, number, number]): Promise<Buffer> {
  const [w, h] = [320, 240];
  const data = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const lift = y < 60 ? 40 : 0;
      const noise = ((x * 7 + y * 13) % 17) - 8;
      for (let c = 0; c < 3; c++) data[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, rgb[c]! + lift + noise));
    }
  return sharp(data, { raw: { width: w, height: h, channels: 3 } })
    .png()
    .toBuffer();
}

/** Neutral camera names: nothing but the pixels says what they show. */
const LIBRARY: [string, [number, number, number]][] = [
  ['IMG_0001.png', [200, 30, 35]], // red
  ['IMG_0002.png', [30, 45, 200]], // blue
  ['IMG_0003.png', [40, 170, 50]], // green
  ['IMG_0004.png', [180, 20, 25]], // another red
];

async function seed(c: TestClient, theme: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const [filename, rgb] of LIBRARY) {
    const r = await c.call('svc_asset_import', 'import', {
      data: (await picture(rgb)).toString('base64'),
      mime_type: 'image/png',
      filename,
    });
    expect(r.error).toBeUndefined();
    ids.set(filename, r.structured.asset_id as string);
  }
  await waitForEnrichment(c, theme);
  return ids;
}

describe('image–text model (the generated tiny CLIP export)', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  let ids: Map<string, string>;
  beforeAll(async () => {
    // No text embedder: the static one relates colour words to each other ("red" ~ "blue") through the
    // colours in its fallback text, so the image model's own evidence is seen alone beside the words.
    srv = await startTestServer({ env: { ATELIER_IMAGE_MODEL: TINY_MODEL, ATELIER_EMBEDDER: 'none' } });
    c = await srv.connect();
    theme = srv.tenant.theme_id;
    ids = await seed(c, theme);
  });
  afterAll(async () => srv.close());

  it.each(['all', 'semantic'])('mode %s: "red" finds the red pictures by what they show, not the blue or green one', async (mode) => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, mode, query: 'red' });
    expect(r.error).toBeUndefined();
    expect(req(r).image_model).toEqual({ model: TINY_MODEL, status: 'ready', reason: null });
    expect(names(r).sort()).toEqual(['IMG_0001.png', 'IMG_0004.png']);
    for (const a of matches(r)) expect(a.matched_by).toEqual(['visual']);
    expect(req(r).match).toBe('hybrid');
    const blue = await c.call('svc_asset_library', 'search', { theme_id: theme, mode, query: 'blue' });
    expect(names(blue)).toEqual(['IMG_0002.png']);
  });

  it('an unrelated word finds nothing (the image space is calibrated against its null distribution)', async () => {
    for (const query of ['xylophone', 'parliament']) {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'all', query });
      expect(r.structured.total).toBe(0);
      expect(req(r).match).toBe('none');
    }
  });

  it('similar: the other red picture first, then nothing unrelated counted as a match', async () => {
    const r = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      mode: 'similar',
      similar_to_asset_id: ids.get('IMG_0001.png'),
    });
    expect(r.error).toBeUndefined();
    expect(names(r)[0]).toBe('IMG_0004.png');
    expect(names(r)).not.toContain('IMG_0001.png');
  });
});

describe('image–text model configured but unloadable, or not configured', () => {
  let off: TestServer;
  let broken: TestServer;
  let offClient: TestClient;
  let brokenClient: TestClient;
  beforeAll(async () => {
    off = await startTestServer();
    broken = await startTestServer({ env: { ATELIER_IMAGE_MODEL: path.join(REPO_ROOT, 'e2e/fixtures/image-model/missing') } });
    offClient = await off.connect();
    brokenClient = await broken.connect();
    await seed(offClient, off.tenant.theme_id);
    await seed(brokenClient, broken.tenant.theme_id);
  });
  afterAll(async () => {
    await off.close();
    await broken.close();
  });

  it('says so in request.image_model and the text, and answers as a server without it does', async () => {
    for (const query of ['red', 'xylophone']) {
      const a = await offClient.call('svc_asset_library', 'search', { theme_id: off.tenant.theme_id, mode: 'all', query });
      const b = await brokenClient.call('svc_asset_library', 'search', { theme_id: broken.tenant.theme_id, mode: 'all', query });
      expect(req(a).image_model).toBeUndefined();
      expect(req(b).image_model).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('missing') as unknown });
      expect(b.text).toContain('image model unavailable, pictures not searched');
      const strip = (r: CallResult) => matches(r).map((m) => [m.name, m.relevance, m.matched_by]);
      expect(strip(b)).toEqual(strip(a));
      expect(b.structured.total).toBe(a.structured.total);
      // without an image model the only picture signal is the measured colours (a colour word such as "red")
      if (query === 'xylophone') for (const m of matches(a)) expect(m.matched_by).not.toContain('visual');
    }
  });
});
