import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDemoCsvs } from '../fixtures/catalog.ts';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

/** Issue 34 item 5: small answers that were wrong. */
describe('suggestions are bounded by limit', () => {
  let ts: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    ts = await startTestServer();
    await importDemoCsvs(ts);
    c = await ts.connect();
  });
  afterAll(() => ts.close());

  it('list_products: matches plus suggestions never exceed limit', async () => {
    let suggested = 0;
    for (const query of ['raspberry swatch', 'velvet', 'gold ring', 'linen', 'ceramic', 'silk scarf', 'xylophone'])
      for (const limit of [1, 2, 3]) {
        const r = await c.call('svc_catalog', 'list_products', { query, limit });
        expect(r.error).toBeUndefined();
        const items = (r.structured.items as unknown[]).length;
        const suggestions = ((r.structured.suggestions as unknown[] | undefined) ?? []).length;
        expect(items + suggestions, `${query} limit ${limit}`).toBeLessThanOrEqual(limit);
        suggested += suggestions;
      }
    expect(suggested).toBeGreaterThan(0); // the bound was exercised, not vacuous
  });
});
