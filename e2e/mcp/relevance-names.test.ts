import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

/** Asset search through an MCP client over photos imported with their original file names and no metadata. */
const names = (r: { structured: Record<string, unknown> }): string[] => (r.structured.assets as { name: string }[]).map((a) => a.name);

describe('search in a library named only by its files (issue 33)', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer();
    c = await srv.connect();
    for (const file of [
      'images/formats/denali.webp',
      'images/nature/prairie_falcon.jpg',
      'images/metadata/thompson-springs.jpg',
      'images/nature/tanners_ridge.jpg',
      'images/nature/silver_fir.jpg',
    ]) {
      const filename = file.split('/').pop()!;
      const r = await c.call('svc_asset_import', 'import', {
        data: demoFile(file).toString('base64'),
        mime_type: filename.endsWith('.webp') ? 'image/webp' : 'image/jpeg',
        filename,
      });
      expect(r.error).toBeUndefined();
    }
    await waitForEnrichment(c, srv.tenant.theme_id);
  });
  afterAll(async () => srv.close());

  it('a word one name holds through WordNet ("Denali", a mountain) is not matched by neighbours of its meaning', async () => {
    // "mountain" is the broader word of Denali; "prairie" and "springs" are only close to it in a word space
    for (const query of ['mountain', 'mountian']) {
      const r = await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, query });
      expect(names(r), query).toEqual(['denali.webp']);
    }
  });
});
