import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoCatalog } from '../../server/catalog/seed-demo.ts';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

/** Calibration in both directions (issue 33 item 2), through an MCP client against the real server. */
interface Hit {
  name: string;
  relevance: number;
  matched_by: string[];
}
interface Ref {
  handle: string;
  relevance: number;
  matched_by: string[];
}

/** Photos whose alt text names no colour; a long caption dilutes the falcon's document vector. */
const LIBRARY = [
  {
    file: 'images/nature/prairie_falcon.jpg',
    alt_text:
      'Photographed on the spring survey near the visitor centre car park, late afternoon, long telephoto lens: a prairie falcon in flight beside a pale limestone cliff',
    tags: ['survey'],
  },
  { file: 'images/nature/cyclamen_persicum.jpg', alt_text: 'A single cyclamen bowing on its stem', tags: ['plant'] },
  { file: 'images/nature/notocactus_minimus.jpg', alt_text: 'A round cactus crowned with blossoms', tags: ['plant'] },
  { file: 'images/nature/wood_anemones.jpg', alt_text: 'Carpet of wood anemones on a forest floor', tags: ['flower'] },
  { file: 'images/metadata/mongolels.jpg', alt_text: 'Wind-rippled sand dunes in warm evening light', tags: ['desert'] },
  { file: 'images/formats/denali.webp', alt_text: 'Snow-capped peaks of the Alaska Range above a gravel road', tags: ['mountain'] },
  // an axis label that WordNet reads as a kind of lawyer ("DA", a district attorney)
  {
    file: 'images/formats/density_plot.png',
    alt_text: 'Density plot of a two-dimensional quantum wavefunction in a square box, the axis labelled DA',
    tags: ['chart'],
  },
];

describe('calibration in both directions (issue 33)', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  let store: string;
  const search = async (query: string) => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query });
    expect(r.error, query).toBeUndefined();
    return { assets: r.structured.assets as Hit[], suggestions: r.structured.suggestions as Hit[] };
  };
  const products = async (query: string) => {
    const r = await c.call('svc_catalog', 'list_products', { store_id: store, query, search_mode: 'hybrid', limit: 50 });
    expect(r.error, query).toBeUndefined();
    expect(r.structured.degraded_from, query).toBeNull();
    return { items: r.structured.items as Ref[], suggestions: r.structured.suggestions as Ref[], total: r.structured.total as number };
  };
  beforeAll(async () => {
    srv = await startTestServer();
    c = await srv.connect();
    theme = srv.tenant.theme_id;
    store = srv.tenant.store_id;
    for (const s of LIBRARY) {
      const r = await c.call('svc_asset_import', 'import', {
        data: demoFile(s.file).toString('base64'),
        mime_type: s.file.endsWith('.webp') ? 'image/webp' : 'image/jpeg',
        filename: s.file.split('/').pop(),
        alt_text: s.alt_text,
        tags: s.tags,
      });
      expect(r.error).toBeUndefined();
    }
    await waitForEnrichment(c, theme);
    await seedDemoCatalog(srv.app, srv.tenant, { tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id });
    await srv.app.catalog.deps.indexer.embedPending(null);
  });
  afterAll(async () => srv.close());

  describe('(a) a meaning-only match needs another signal', () => {
    it('does not count sofas, armchairs or bracelets as leather jackets; the jackets and leather goods stay', async () => {
      const r = await products('leather jacket');
      const handles = r.items.map((p) => p.handle);
      for (const h of ['classic-leather-jacket', 'navy-sport-jacket', 'dark-winter-jacket', 'zipped-jacket', 'olive-green-jacket'])
        expect(handles, h).toContain(h);
      for (const h of ['cream-sofa', 'grey-sofa', 'yellow-sofa', 'pink-armchair', 'chain-bracelet', 'brown-throw-pillows'])
        expect(handles, h).not.toContain(h);
      // every match has its own evidence beyond the embedding: words of the query in its text
      for (const p of r.items)
        expect(
          p.matched_by.some((m) => m === 'text' || m === 'typo' || m === 'concept'),
          p.handle,
        ).toBe(true);
      expect(r.total).toBe(r.items.length);
    });

    it('lists a meaning-only product without agreeing labels as a suggestion, not a match', async () => {
      // throw pillows are near "warm clothes" in the embedding, but nothing they are labelled with is clothing
      const r = await products('warm clothes for winter');
      expect(r.items.map((p) => p.handle)).toContain('dark-winter-jacket');
      expect(r.items.map((p) => p.handle)).not.toContain('knitted-throw-pillows');
      const pillows = r.suggestions.find((p) => p.handle === 'knitted-throw-pillows');
      expect(pillows?.matched_by).toEqual(['meaning']);
      expect(pillows!.relevance).toBeLessThan(0.5);
    });
  });

  describe('(a) a word vector close to a query word is no second signal', () => {
    it('does not count dunes "in warm evening light" as a sunset sky; they stay a suggestion', async () => {
      // the dunes' meaning is near the query, and "evening" is near "sunset" in the same word vectors
      const r = await search('sunset sky');
      expect(r.assets.map((a) => a.name)).toEqual([]);
      expect(r.suggestions.map((a) => a.name)).toContain('mongolels.jpg');
    });
  });

  describe('(a) one word of a photo close to the query is no match by itself', () => {
    it('answers words about nothing here with nothing, though a photo says a word related to each', async () => {
      // "flight" in the falcon's caption is close to "airplane", the anemones' forest "floor" to "bathroom" and
      // "elevator", the cactus "crowned" to "queen"; none of these photos is, as a whole, near the query
      for (const [query, related] of [
        ['airplane', 'prairie_falcon.jpg'],
        ['bathroom', 'wood_anemones.jpg'],
        ['elevator', 'wood_anemones.jpg'],
        ['queen', 'notocactus_minimus.jpg'],
      ] as const) {
        const r = await search(query);
        expect({ query, assets: r.assets.map((a) => a.name) }).toEqual({ query, assets: [] });
        expect(
          r.suggestions.map((a) => a.name),
          query,
        ).toContain(related);
      }
    });
  });

  describe('(a) a WordNet concept in another sense is no match', () => {
    it('does not count a plot whose axis says "DA" as a lawyer; a kind of the thing asked for still matches', async () => {
      // WordNet's "DA" is a district attorney, a kind of lawyer, and the caption says it as a noun; the plot's
      // meaning as a whole is no nearer "lawyer" than an unrelated picture's is
      const lawyer = await search('lawyer');
      expect(lawyer.assets.map((a) => a.name)).toEqual([]);
      expect(lawyer.suggestions.map((a) => a.name)).toContain('density_plot.png');
      // a kind of the thing asked for is near it in meaning too: the falcon is a bird
      const bird = await search('bird');
      expect(bird.assets.map((a) => a.name)).toEqual(['prairie_falcon.jpg']);
      expect(bird.assets[0]!.matched_by).toContain('concept');
    });

    it('reads a word the photo says in its usual sense: wood anemones are flowers, not sea anemones', async () => {
      // WordNet files "anemone" under plants first and under animals second, neither sense counted in use
      const animal = await search('animal');
      expect(animal.assets.map((a) => a.name)).not.toContain('wood_anemones.jpg');
      expect(animal.assets.map((a) => a.name)).toContain('prairie_falcon.jpg');
      const flowers = await search('flowers');
      expect(flowers.assets.map((a) => a.name)).toContain('wood_anemones.jpg');
    });
  });

  describe('(b) descriptive queries match by covering most of their words', () => {
    it('finds the falcon for a description that shares no word with its long caption', async () => {
      const r = await search('raptor flying beside a crag');
      expect(r.assets.map((a) => a.name)).toEqual(['prairie_falcon.jpg']);
      expect(r.assets[0]!.relevance).toBeGreaterThanOrEqual(0.5);
      expect(r.assets[0]!.matched_by).toEqual(expect.arrayContaining(['concept', 'meaning']));
    });
  });

  describe('(b) related words stand in only for words the library does not say', () => {
    it('answers a word the library holds with what says it, not with photos of related things', async () => {
      // plants and landscapes lie close to "cactus" and "dunes" in a word space; the library says both words
      for (const [query, only] of [
        ['cactus', 'notocactus_minimus.jpg'],
        ['sand dunes', 'mongolels.jpg'],
      ] as const) {
        const r = await search(query);
        expect(
          r.assets.map((a) => a.name),
          query,
        ).toEqual([only]);
      }
    });
  });

  describe('(c) colour words weigh against the measured colours', () => {
    it('answers "pink flower" with the pink photo only, though no alt text says pink', async () => {
      const r = await search('pink flower');
      expect(r.assets.map((a) => a.name)).toEqual(['cyclamen_persicum.jpg']);
      expect(r.assets[0]!.matched_by).toContain('visual');
      // the flowers of other colours are no matches, at most suggestions
      for (const s of r.suggestions) expect(s.relevance).toBeLessThan(0.5);
    });
  });
});
