import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoCatalog } from '../../server/catalog/seed-demo.ts';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { smallDemoPhoto } from './fixtures.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';
import { spawnCli } from './processes.ts';

/** The honest results contract (issue 11), through an MCP client against the real server. */
interface Hit {
  id: string;
  name: string;
  relevance: number | null;
  matched_by: string[] | null;
  alt_text: string | null;
  tags: string[];
}
interface Ref {
  product_id: string;
  handle: string;
  relevance: number | null;
  matched_by: string[] | null;
}
const assetsOf = (r: { structured: Record<string, unknown> }): Hit[] => r.structured.assets as Hit[];
const suggestionsOf = (r: { structured: Record<string, unknown> }): Hit[] => r.structured.suggestions as Hit[];
const names = (r: { structured: Record<string, unknown> }): string[] => assetsOf(r).map((a) => a.name);
const handles = (r: { structured: Record<string, unknown> }): string[] => (r.structured.items as Ref[]).map((p) => p.handle);
const request = (r: { structured: Record<string, unknown> }) =>
  r.structured.request as { match: string; corrected_query: string | null; expanded_terms: string[]; mode: string };

/** Photos with merchant metadata, and one photo under a camera-style compound name with none (the 6k px photos of images/text/ downscaled: smallDemoPhoto). */
const LIBRARY = [
  { file: 'images/nature/prairie_falcon.jpg', alt_text: 'A prairie falcon in flight beside a limestone cliff', tags: ['bird', 'falcon'] },
  { file: 'images/nature/cyclamen_persicum.jpg', alt_text: 'A single pink cyclamen flower', tags: ['flower'] },
  { file: 'images/nature/silver_fir.jpg', alt_text: 'Silver fir branches in a conifer forest', tags: ['tree', 'forest'] },
  { file: 'images/text/craft-beer.jpg', alt_text: 'Bartender behind a craft beer tasting flight', tags: ['beer', 'bar'] },
  { file: 'images/metadata/mongolels.jpg', alt_text: 'Wind-rippled sand dunes in warm evening light', tags: ['desert', 'sand', 'dunes'] },
  {
    file: 'images/text/book-beside-flowers.jpg',
    alt_text: 'Open book beside dried orange flowers',
    tags: ['book'],
    filename: 'cats-and-books.jpg',
  },
  {
    file: 'images/nature/notocactus_minimus.jpg',
    alt_text: 'Catalog cover: a round cactus with yellow blossoms',
    tags: ['catalog'],
    filename: 'catalog-cover.jpg',
  },
  // no typed metadata at all: only the file name says what it is
  { file: 'images/formats/denali.webp', filename: 'DSC_0042-SnowyMountainRange.webp' },
  // nor here, and the name is one closed compound the thesaurus lacks
  { file: 'images/nature/orychophragmus_violaceus.jpg', filename: 'violetwildflower.jpg' },
  // a black-and-white photo under a camera name: only its pixels say it has no colour
  { file: 'images/metadata/portrait.jpg', filename: 'DSC_0100.jpg' },
];

describe('honest search results (issue 11)', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  let store: string;
  const ids = new Map<string, string>();
  beforeAll(async () => {
    srv = await startTestServer();
    c = await srv.connect();
    theme = srv.tenant.theme_id;
    store = srv.tenant.store_id;
    for (const s of LIBRARY) {
      const filename = s.filename ?? s.file.split('/').pop()!;
      const r = await c.call('svc_asset_import', 'import', {
        data: (s.file.startsWith('images/text/') ? await smallDemoPhoto(s.file) : demoFile(s.file)).toString('base64'),
        mime_type: filename.endsWith('.webp') ? 'image/webp' : 'image/jpeg',
        filename,
        ...(s.alt_text ? { alt_text: s.alt_text, tags: s.tags } : {}),
      });
      expect(r.error).toBeUndefined();
      ids.set(filename, r.structured.asset_id as string);
    }
    // A picture without any words: no metadata, a camera file name, no text in it.
    const plain = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#2a4fd0' } })
      .jpeg()
      .toBuffer();
    const p = await c.call('svc_asset_import', 'import', {
      data: plain.toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'IMG_1234.jpg',
    });
    expect(p.error).toBeUndefined();
    ids.set('IMG_1234.jpg', p.structured.asset_id as string);
    await waitForEnrichment(c, theme);
    await seedDemoCatalog(srv.app, srv.tenant, { tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id });
    await srv.app.catalog.deps.indexer.embedPending(null);
  });
  afterAll(async () => srv.close());

  describe('1. the results contract', () => {
    it('answers a query about nothing in the library with no match, the next step, and suggestions kept apart', async () => {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'basketball court' });
      expect(r.error).toBeUndefined();
      expect(r.structured).toMatchObject({ total: 0, assets: [], has_more: false });
      expect(request(r).match).toBe('none');
      expect(r.text).toMatch(/^No match for "basketball court"/);
      expect(r.text).toContain('svc_drafts asset_generate');
      expect(r.text).toContain('svc_asset_import');
      expect(r.text).toContain('svc_asset_select');
      for (const s of suggestionsOf(r)) expect(s.relevance!).toBeLessThan(0.5);
      if (suggestionsOf(r).length) expect(r.text).toContain('NOT matches');
    });

    it('gives every hit a relevance in [0, 1] and how it matched; browsing has neither', async () => {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'falcon' });
      expect(names(r)[0]).toBe('prairie_falcon.jpg');
      for (const a of assetsOf(r)) {
        expect(a.relevance!).toBeGreaterThanOrEqual(0.5);
        expect(a.relevance!).toBeLessThanOrEqual(1);
        expect(a.matched_by!.length).toBeGreaterThan(0);
      }
      expect(assetsOf(r)[0]).toMatchObject({ relevance: 1, matched_by: expect.arrayContaining(['text']) });
      expect(r.structured.total).toBe(assetsOf(r).length);
      expect(r.text).toMatch(/relevance 1\.00 \(words/);
      const browse = await c.call('svc_asset_library', 'search', { theme_id: theme });
      expect(assetsOf(browse).every((a) => a.relevance === null && a.matched_by === null)).toBe(true);
      expect(request(browse).match).toBe('browse');
    });

    it('offers the picker only matches as candidates, and svc_discover publishes the contract', async () => {
      const none = await c.call('svc_asset_select', 'select', { theme_id: theme, query: 'basketball court' });
      expect(none.structured.candidates).toEqual([]);
      const d = await c.call('svc_discover', 'discover', { query: 'search', router: 'svc_asset_library', include_schemas: true });
      const search = (
        d.structured.actions as {
          action: string;
          result_schema: {
            properties: Record<string, { properties?: Record<string, unknown>; items?: { properties?: Record<string, unknown> } }>;
          };
        }[]
      ).find((a) => a.action === 'search')!;
      expect(Object.keys(search.result_schema.properties)).toEqual(expect.arrayContaining(['assets', 'total', 'suggestions']));
      expect(Object.keys(search.result_schema.properties.assets!.items!.properties!)).toEqual(
        expect.arrayContaining(['relevance', 'matched_by']),
      );
      expect(Object.keys(search.result_schema.properties.request!.properties!)).toEqual(
        expect.arrayContaining(['corrected_query', 'expanded_terms', 'match']),
      );
    });
  });

  describe('2. calibrated acceptance', () => {
    it('accepts a meaning-only match only when it is significant for the library, and stores the calibration', async () => {
      // "raptor" is in no text: the falcon is found by meaning (or as a concept), never as a word
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query: 'raptor bird' });
      expect(names(r)[0]).toBe('prairie_falcon.jpg');
      expect(assetsOf(r)[0]!.matched_by).toEqual(['meaning']);
      expect(assetsOf(r)[0]!.relevance!).toBeLessThan(0.75); // below every complete word match
      const [space] = await srv.app.stores.vectors.liveSpaces('asset_text');
      const cal = await srv.app.stores.calibrations.get(`asset_text:${space!.model_id}:${space!.dimensions}`, srv.tenant.workspace_id);
      expect(cal!.items).toBe(LIBRARY.length + 1);
      expect(cal!.pairs).toBeGreaterThan(100);
    });

    it('a stricter ATELIER_MATCH_ALPHA turns the same neighbour into a suggestion', async () => {
      const strict = await startTestServer({ env: { ATELIER_MATCH_ALPHA: '1e-12' } });
      try {
        const sc = await strict.connect();
        const r = await sc.call('svc_asset_import', 'import', {
          data: demoFile('images/nature/prairie_falcon.jpg').toString('base64'),
          mime_type: 'image/jpeg',
          filename: 'prairie_falcon.jpg',
          alt_text: 'A prairie falcon in flight',
          tags: ['falcon'],
        });
        expect(r.error).toBeUndefined();
        await sc.call('svc_asset_import', 'import', {
          data: demoFile('images/nature/silver_fir.jpg').toString('base64'),
          mime_type: 'image/jpeg',
          filename: 'silver_fir.jpg',
          alt_text: 'Silver fir branches',
          tags: ['tree'],
        });
        await waitForEnrichment(sc, strict.tenant.theme_id);
        const s = await sc.call('svc_asset_library', 'search', {
          theme_id: strict.tenant.theme_id,
          mode: 'semantic',
          query: 'raptor bird',
        });
        expect(s.structured.total).toBe(0);
        expect(request(s).match).toBe('none');
        // words still match as words
        const w = await sc.call('svc_asset_library', 'search', { theme_id: strict.tenant.theme_id, query: 'falcon' });
        expect(names(w)).toEqual(['prairie_falcon.jpg']);
      } finally {
        await strict.close();
      }
    });

    it('similar separates a near-duplicate from the rest', async () => {
      const copy = await sharp(demoFile('images/nature/prairie_falcon.jpg')).resize({ width: 400 }).jpeg({ quality: 60 }).toBuffer();
      const r = await c.call('svc_asset_import', 'import', {
        data: copy.toString('base64'),
        mime_type: 'image/jpeg',
        filename: 'upload-7.jpg',
      });
      await waitForEnrichment(c, theme);
      const s = await c.call('svc_asset_library', 'search', {
        theme_id: theme,
        mode: 'similar',
        similar_to_asset_id: r.structured.asset_id,
      });
      expect(names(s)[0]).toBe('prairie_falcon.jpg');
      expect(assetsOf(s)[0]).toMatchObject({ matched_by: ['visual'] });
      expect(assetsOf(s)[0]!.relevance!).toBeGreaterThanOrEqual(0.95);
      for (const a of [...assetsOf(s).slice(1), ...suggestionsOf(s)]) expect(a.relevance!).toBeLessThan(0.95);
      await c.call('svc_asset_manage', 'delete', { asset_ids: [r.structured.asset_id] });
    });
  });

  describe('3. one lexical planner', () => {
    it('ranks exact words above longer words that merely start with them; an unfinished word is completed', async () => {
      const cats = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'cats', mode: 'filename' });
      expect(names(cats)).toEqual(['cats-and-books.jpg']);
      const unfinished = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'catal', mode: 'filename' });
      expect(names(unfinished)).toEqual(['catalog-cover.jpg']);
    });

    it('counts facets over exactly the assets search returns (all-terms, then any-term fallback)', async () => {
      for (const query of ['falcon', 'falcon zebra', 'flower book']) {
        const s = await c.call('svc_asset_library', 'search', { theme_id: theme, query });
        const f = await c.call('svc_asset_panel', 'facets', { query });
        expect(f.error, query).toBeUndefined();
        expect(f.structured.total, query).toBe(s.structured.total);
      }
    });
  });

  describe('4. typo tolerance', () => {
    it('corrects a misspelt word from the library vocabulary and says so', async () => {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'flacon' });
      expect(names(r)[0]).toBe('prairie_falcon.jpg');
      expect(assetsOf(r)[0]!.matched_by).toContain('typo');
      expect(request(r).corrected_query).toBe('falcon');
      expect(r.text).toContain('Showing results for "falcon"');
      // short words get no typo budget (Meilisearch's: none under 5 letters)
      const short = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'bok', mode: 'alt_text' });
      expect(short.structured.total).toBe(0);
    });

    it("spells a word no document says against the embedder's words, so its meaning still finds the photo", async () => {
      // no document says "raptor" (nor a typo of it): the word vectors know it, one letter away
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'raptr' });
      expect(names(r)).toEqual(['prairie_falcon.jpg']);
      expect(request(r).corrected_query).toBe('raptor');
      expect(r.text).toContain('Showing results for "raptor"');
      // a word the library holds is never respelt, though the word vectors lack it
      const own = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'violetwildflower' });
      expect(names(own)).toEqual(['violetwildflower.jpg']);
      expect(request(own).corrected_query).toBeNull();
    });
  });

  describe('5. concept expansion and operator synonyms', () => {
    it('a general word finds the specific things under it (WordNet hyponyms), below exact matches', async () => {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'animal', mode: 'alt_text' });
      expect(r.structured.total).toBe(0); // exact-field modes do not expand
      const all = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'animal' });
      const falcon = assetsOf(all).find((a) => a.name === 'prairie_falcon.jpg')!;
      expect(falcon.matched_by).toContain('concept');
      expect(falcon.relevance!).toBeLessThan(1);
      expect(request(all).expanded_terms).toContain('falcon');
      expect(names(all)).not.toContain('silver_fir.jpg');
      // "sports" reaches "singles" (tennis), whose Porter stem is that of "single": the single cyclamen is no sport
      const sports = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'sports' });
      expect(names(sports)).toEqual([]);
      // WordNet's relations are between nouns: "waves" reaches the noun "ripple", which the dunes' "Wind-rippled" (a
      // verb's form) is not, so sand dunes are no match for "ocean waves"; a noun form still counts
      const waves = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'ocean waves' });
      expect(names(waves)).toEqual([]);
      const ripples = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'ripples in the sand' });
      expect(names(ripples)).toContain('mongolels.jpg');
      const couch = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'couch', search_mode: 'lexical' });
      expect(handles(couch).slice(0, 3).sort()).toEqual(['cream-sofa', 'grey-sofa', 'yellow-sofa']);
    });

    // spawns the CLI five times (each boots tsx and the app): slow on a loaded machine
    it('applies the workspace and store synonym lists an operator edits with `atelier synonyms`', { timeout: 240_000 }, async () => {
      // children on the server's data dir (and its database: spawnCli), run asynchronously: under
      // ATELIER_TEST_PGLITE=1 this process serves their database
      const cli = async (...args: string[]) => {
        const r = await spawnCli(['synonyms', ...args, '--json'], { ATELIER_DATA_DIR: srv.config.dataDir, ATELIER_LOG_LEVEL: 'silent' })
          .exited;
        expect(r.code, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as Record<string, unknown>;
      };
      const before = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'zorblax' });
      expect(before.structured.total).toBe(0);
      const rule = await cli('add', '--workspace', srv.tenant.workspace_id, '--one-way', 'zorblax', 'falcon');
      const after = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'zorblax' });
      expect(names(after)).toEqual(['prairie_falcon.jpg']);
      expect(assetsOf(after)[0]!.matched_by).toEqual(['concept']);
      // one-way: "falcon" does not find what "zorblax" would
      const back = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'falcon', mode: 'all' });
      expect(request(back).expanded_terms).not.toContain('zorblax');
      const store2 = await cli('add', '--workspace', srv.tenant.workspace_id, '--store', store, 'trainers', 'high tops');
      const trainers = await c.call('svc_catalog', 'list_products', { store_id: store, query: 'trainers', search_mode: 'lexical' });
      expect(handles(trainers)).toEqual(['led-high-tops']);
      const listed = (await cli('list', '--workspace', srv.tenant.workspace_id)) as { rules: { id: string }[] };
      expect(listed.rules.map((x) => x.id)).toEqual([rule.id, store2.id]);
      await cli('remove', rule.id as string);
      const gone = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'zorblax' });
      expect(gone.structured.total).toBe(0);
      const bad = await spawnCli(['synonyms', 'add', '--workspace', srv.tenant.workspace_id, 'lonely'], {
        ATELIER_DATA_DIR: srv.config.dataDir,
      }).exited;
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('two-way rule needs at least two words');
    });
  });

  describe('6. enrichment text hygiene', () => {
    it('makes file-name words searchable and keeps colours and orientation out of the words', async () => {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'snowy mountain', mode: 'filename' });
      expect(names(r)).toEqual(['DSC_0042-SnowyMountainRange.webp']);
      // its alt text is the title embedded in the file (XMP dc:title), not the file name's words
      expect(assetsOf(r)[0]!.alt_text).toBe('Denali National Park and Preserve');
      // the plain blue picture carries "blue" as an automatic tag (a fact), but the word does not match it
      const browse = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 });
      const plain = assetsOf(browse).find((a) => a.name === 'IMG_1234.jpg')!;
      expect(plain.tags).toContain('blue');
      const blue = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'blue', mode: 'tags' });
      expect(names(blue)).not.toContain('IMG_1234.jpg');
      const landscape = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'landscape', mode: 'alt_text' });
      expect(landscape.structured.total).toBe(0);
    });

    it('finds a photo named by a compound word through the noun it ends in, also misspelt', async () => {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'wildflower' });
      expect(names(r)).toEqual(['violetwildflower.jpg']);
      expect(assetsOf(r)[0]!.alt_text).toBe('Violetwildflower (wildflower)');
      const typo = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'wildflowr' });
      expect(names(typo)).toEqual(['violetwildflower.jpg']);
      expect(request(typo).corrected_query).toBe('wildflower');
    });

    it('finds a black-and-white photo by its pixels: "black and white", "monochrome", "grayscale"', async () => {
      for (const query of ['black and white photo', 'monochrome', 'grayscale']) {
        const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query });
        expect(names(r), query).toEqual(['DSC_0100.jpg']);
      }
      const browse = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 });
      const mono = assetsOf(browse).filter((a) => a.tags.includes('monochrome'));
      expect(mono.map((a) => a.name)).toEqual(['DSC_0100.jpg']);
      // one colour word alone is no request for a picture without colour
      const white = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'white' });
      expect(names(white)).not.toContain('DSC_0100.jpg');
    });

    it('gives every analysed asset a text vector, even without any words', async () => {
      const scope = { tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id };
      const { rows } = await srv.app.stores.assets.browse(scope, {}, 0, 1000);
      const images = rows.filter((a) => a.kind !== 'video').length;
      const spaces = await srv.app.stores.vectors.liveSpaces('asset_text');
      expect(spaces.map((s) => s.status)).toEqual(['ready']);
      expect(await srv.app.stores.vectors.count(scope, spaces[0]!)).toBe(images);
    });
  });
});
