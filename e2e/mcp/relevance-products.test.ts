import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCatalogFile } from '../../server/catalog/import-file.ts';
import { seedDemoCatalog } from '../../server/catalog/seed-demo.ts';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

/** The honest results contract of list_products (issues 11 and 33), through an MCP client on the demo catalog. */
interface Ref {
  product_id: string;
  handle: string;
  relevance: number | null;
  matched_by: string[] | null;
}
const handles = (r: { structured: Record<string, unknown> }): string[] => (r.structured.items as Ref[]).map((p) => p.handle);

describe('product search results', () => {
  let srv: TestServer;
  let c: TestClient;
  let store: string;
  beforeAll(async () => {
    srv = await startTestServer();
    c = await srv.connect();
    store = srv.tenant.store_id;
    await seedDemoCatalog(srv.app, srv.tenant, { tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id });
    await srv.app.catalog.deps.indexer.embedPending(null);
  });
  afterAll(async () => srv.close());

  describe('matches only', () => {
    it('lists only matching products; a product the shop does not sell gets no items in any mode', async () => {
      for (const search_mode of ['hybrid', 'lexical', 'semantic']) {
        const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'laptop', search_mode });
        expect(r.error, search_mode).toBeUndefined();
        expect(r.structured, search_mode).toMatchObject({ items: [], total: 0, returned: 0 });
        expect(r.text, search_mode).toMatch(/^No product matches for "laptop"/);
      }
      const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'bracelet' });
      expect((r.structured.items as Ref[]).every((p) => p.relevance! >= 0.5 && p.matched_by!.length > 0)).toBe(true);
      expect(r.structured.suggestions).toEqual([]);
    });
  });

  describe('typo tolerance', () => {
    it('finds a product in the top 3 despite one typo', async () => {
      for (const [query, handle] of [
        ['neckalce', 'necklace'],
        ['braclet', 'bracelet'],
        ['turqoise', 'turquoise'],
      ] as const) {
        const r = await c.call('svc_catalog', 'list_products', { store_id: store, query });
        expect(r.structured.corrected_query, query).toBe(handle);
        expect(handles(r).length, query).toBeGreaterThan(0);
        expect((r.structured.items as Ref[])[0]!.matched_by, query).toContain('typo');
      }
    });

    it('does not respell a dictionary word whose meaning the shop sells: "sweater" is the jumper, not a "3-seater" sofa', async () => {
      for (const search_mode of ['hybrid', 'lexical'] as const) {
        const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'sweater', search_mode });
        expect(handles(r), search_mode).toEqual(['yellow-wool-jumper']);
        expect(r.structured.corrected_query, search_mode).toBeNull();
      }
    });

    it('offers the respelling of a dictionary word the shop lacks as a suggestion, not a match: "towel" is no trowel', async () => {
      for (const search_mode of ['hybrid', 'lexical'] as const) {
        const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'towel', search_mode });
        expect({ items: handles(r), total: r.structured.total }, search_mode).toEqual({ items: [], total: 0 });
        expect(r.structured.corrected_query, search_mode).toBe('trowel');
        expect(r.text, search_mode).toContain('Its nearest spelling here, "trowel", was searched too; what that finds is not a match.');
        expect(
          (r.structured.suggestions as Ref[]).map((p) => p.handle),
          search_mode,
        ).toContain('gardening-hand-trowel');
      }
    });
  });

  describe('fusion', () => {
    it('counts products matching part of the query only when none matches all of it', async () => {
      // "can" is in other products' care notes ("can be machine washed"); the watering can matches both words
      for (const search_mode of ['lexical', 'hybrid'] as const) {
        const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'watering can', search_mode });
        expect(handles(r), search_mode).toEqual(['yellow-watering-can']);
      }
      // no product is a wool tuxedo: the silk tuxedo, matching the rarer word, is still a match
      const part = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'wool tuxedo', search_mode: 'lexical' });
      expect(handles(part)).toEqual(['blue-silk-tuxedo']);
    });

    it('keeps complete word matches above meaning-only ones, and meaning-only products need the calibrated threshold', async () => {
      const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'leather jacket', search_mode: 'hybrid' });
      const items = r.structured.items as Ref[];
      expect(items[0]).toMatchObject({ handle: 'classic-leather-jacket', relevance: 1 });
      const firstMeaningOnly = items.findIndex((p) => !p.matched_by!.some((m) => m === 'text' || m === 'typo' || m === 'concept'));
      const lastComplete = items.map((p) => p.relevance).lastIndexOf(1);
      if (firstMeaningOnly >= 0) expect(firstMeaningOnly).toBeGreaterThan(lastComplete);
      for (const p of items) expect(p.relevance!).toBeGreaterThanOrEqual(0.5);
      const lexical = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'leather jacket', search_mode: 'lexical' });
      expect(handles(r).slice(0, handles(lexical).filter((h) => h === 'classic-leather-jacket').length)).toEqual([
        'classic-leather-jacket',
      ]);
    });

    it('a meaning match must agree with the kind of thing asked for, not only with a word that narrows it', async () => {
      // "silver" is in the text of necklaces and bracelets, and the embedding rates them close to earrings
      const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'silver earrings', search_mode: 'hybrid' });
      expect(handles(r).length).toBeGreaterThan(0);
      expect(handles(r).filter((h) => !h.includes('earrings'))).toEqual([]);
      // "garden" labels the trowel and the pots, "wooden" the table: none of them is a fence
      const fence = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'wooden garden fence', search_mode: 'hybrid' });
      expect(handles(fence)).toContain('wooden-fence');
      expect(handles(fence)).not.toContain('gardening-hand-trowel');
      expect(handles(fence)).not.toContain('wooden-outdoor-table');
    });

    it('a product whose text names other colours than the query asks for is a suggestion, not a match', async () => {
      // the White Cotton Shirt and the Chequered Red Shirt are shirts, and their embeddings are near "blue shirt"
      for (const search_mode of ['hybrid', 'lexical'] as const) {
        const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'blue shirt', search_mode });
        expect(handles(r), search_mode).toEqual(['ocean-blue-shirt']);
        expect(r.structured.total, search_mode).toBe(1);
      }
      const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'blue shirt' });
      expect((r.structured.suggestions as Ref[]).map((p) => p.handle)).toContain('white-cotton-shirt');
      // the Blue Silk Tuxedo is formal dress, but blue
      const dress = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'red dress' });
      expect(handles(dress)).not.toContain('blue-silk-tuxedo');
      // a shade states the basic colour it is called by: the Navy Sports Jacket answers "blue jacket", not "yellow jacket"
      const jacket = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'blue jacket' });
      expect(handles(jacket)).toContain('navy-sport-jacket');
      const yellow = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'yellow jacket' });
      expect(handles(yellow)).not.toContain('navy-sport-jacket');
    });
  });

  describe('concepts', () => {
    it('a kind of the thing asked for that is a part of something else is no match', async () => {
      // WordNet's pocket is a pouch, so a bag; the shirts and jackets say "front pocket", "chest pockets"
      for (const search_mode of ['hybrid', 'lexical']) {
        const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'bag', search_mode });
        expect(r.error, search_mode).toBeUndefined();
        expect(handles(r).sort(), search_mode).toEqual(['black-bean-bag', 'black-leather-bag']);
      }
    });
    it('a brand’s name says nothing of what its products are', async () => {
      // "dwelling" has the synonym "home", and the vendor of the sofa, the pillows and the candle is "Home Sweet Home"
      for (const search_mode of ['hybrid', 'lexical']) {
        const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'dwelling', search_mode });
        expect(r.error, search_mode).toBeUndefined();
        expect(handles(r), search_mode).toEqual([]);
      }
      const brand = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'home sweet home', search_mode: 'lexical' });
      expect(handles(brand)).toContain('vanilla-candle');
    });
    it('a kind reaches a word whose first, untagged sense is another thing', async () => {
      // WordNet's first "bracelet" is a watchband; the jewellery is its second sense, the first of "bangle"
      const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'jewelry', search_mode: 'lexical', limit: 50 });
      expect(r.error).toBeUndefined();
      expect(handles(r)).toContain('moon-charm-bracelet');
    });
    it('a word that names a thing as often as an idea is read as the thing', async () => {
      // WordNet's "perfume" is a pleasant smell (synonym "scent") as often as a toiletry; the candle says "scent"
      for (const search_mode of ['hybrid', 'lexical']) {
        const perfume = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'perfume', search_mode });
        expect(perfume.error, search_mode).toBeUndefined();
        expect(handles(perfume), search_mode).toEqual([]);
        // a word that is only the smell still finds it
        const fragrance = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'fragrance', search_mode });
        expect(handles(fragrance), search_mode).toEqual(['vanilla-candle']);
      }
    });
    it('a WordNet concept counts only where a product says it as a noun, not a verb or adjective of the same stem', async () => {
      // "waves" reaches its hyponym "ripple"; the index keeps Porter stems, so it also meets "rippled"
      const product = (id: number, handle: string, title: string, body: string) => ({
        id,
        title,
        handle,
        body_html: `<p>${body}</p>`,
        vendor: 'Glassworks',
        product_type: 'Vase',
        status: 'active',
        tags: '',
        variants: [{ id: id * 10, title: 'Default Title', price: '30.00', sku: `G-${id}` }],
        options: [{ name: 'Title', values: ['Default Title'] }],
      });
      await importCatalogFile(
        srv.app.catalog.deps,
        { tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id, storeId: store },
        {
          name: 'glass.json',
          text: JSON.stringify({
            products: [
              product(9101, 'fluted-glass-vase', 'Fluted Glass Vase', 'A hand-blown vase with a rippled surface.'),
              product(9102, 'ripple-glass-bowl', 'Ripple Glass Bowl', 'A bowl whose glass holds ripples like a pond.'),
            ],
          }),
        },
      );
      const r = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'waves', search_mode: 'lexical' });
      expect(r.error).toBeUndefined();
      expect(handles(r)).toEqual(['ripple-glass-bowl']);
      expect((r.structured.items as Ref[])[0]!.matched_by).toContain('concept');
    });
  });
});
