import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IMAGES_DIR, loadDemoMetadata, seedDemo } from '../../server/seed.ts';
import { connectApp, startTestServer, type CallResult, type TestClient, type TestServer } from './harness.ts';

const names = (r: CallResult): string[] => (r.structured.assets as { name: string }[]).map((a) => a.name);

describe('demo seed', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    const demo = await seedDemo(srv.app);
    expect(demo.failed).toEqual([]);
    c = await connectApp(srv.app, demo.api_key!);
    theme = demo.theme_id;
  }, 120_000);
  afterAll(async () => {
    await c.close();
    await srv.close();
  });

  it('imports every demo photo with the curated alt text, tags, purpose and category as user metadata', async () => {
    const curated = loadDemoMetadata(DEMO_IMAGES_DIR);
    expect(curated.size).toBe(22);
    const all = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 });
    expect(all.structured.total).toBe(22);
    const beer = (all.structured.assets as { name: string; alt_text: string; tags: string[]; category: string | null; subtype: string | null }[]).find((a) => a.name === 'craft-beer.jpg')!;
    expect(beer).toMatchObject({ alt_text: curated.get('text/craft-beer.jpg')!.alt_text, category: 'lifestyle', subtype: 'editorial' });
    expect(beer.tags.slice(0, 3)).toEqual(['beer', 'craft beer', 'bar']);
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, category: 'document', subtype: 'chart' }))).toEqual(['density_plot.png']);
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, category: 'background', subtype: 'hero-bg' })).sort()).toEqual(['denali.webp', 'tanners_ridge.jpg']);
    // the HEIC is stored as PNG under its converted name
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'alt_text', query: 'sensor steel frame' }))).toEqual(['IMG_2682.png']);
  });

  it('finds the photos a merchant would look for by their descriptions', async () => {
    const flowers = names(await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'tags', query: 'flower' }));
    // "flower" also matches the tag "flowers" (prefix match)
    expect(flowers.sort()).toEqual(['book-beside-flowers.jpg', 'cyclamen_persicum.jpg', 'notocactus_minimus.jpg', 'orychophragmus_violaceus.jpg', 'polemonium_reptans.jpg', 'wood_anemones.jpg']);
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'bird of prey' }))[0]).toBe('prairie_falcon.jpg');
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'japanese storefront at night' }))[0]).toBe('japanese-shop.jpg');
  });
});
