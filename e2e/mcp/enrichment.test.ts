import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSearchLibrary, smallDemoPhoto } from './fixtures.ts';
import { waitForEnrichment, type EnrichedAsset as A } from './enrichment-helpers.ts';
import { demoFile, startTestServer, type CallResult, type TestClient, type TestServer } from './harness.ts';

interface Req {
  mode: string;
  match: string;
  degraded_from: string | null;
}
const names = (r: CallResult): string[] => (r.structured.assets as A[]).map((a) => a.name);
const req = (r: CallResult): Req => r.structured.request as Req;

describe('enrichment, semantic, similar and hybrid search (static embedder)', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  let ids: Map<string, string>;
  beforeAll(async () => {
    srv = await startTestServer();
    c = await srv.connect();
    theme = srv.tenant.theme_id;
    ids = await seedSearchLibrary(c);
    for (const f of ['images/text/craft-beer.jpg', 'images/text/book-beside-flowers.jpg', 'images/text/japanese-shop.jpg']) {
      const r = await c.call('svc_asset_import', 'import', {
        data: (await smallDemoPhoto(f)).toString('base64'),
        mime_type: 'image/jpeg',
        filename: f.split('/').pop(),
      });
      expect(r.error).toBeUndefined();
      ids.set(f.split('/').pop()!, r.structured.asset_id as string);
    }
    // A re-encoded, resized copy of a photo under an unrelated name: `similar` must find it first.
    const copy = await sharp(demoFile('images/nature/silver_fir.jpg')).resize({ width: 300 }).jpeg({ quality: 55 }).toBuffer();
    const r = await c.call('svc_asset_import', 'import', {
      data: copy.toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'upload-0042.jpg',
    });
    expect(r.error).toBeUndefined();
    ids.set('upload-0042.jpg', r.structured.asset_id as string);
    await waitForEnrichment(c, theme);
  });
  afterAll(async () => srv.close());

  it('import returns at once with enrichment pending, and every asset ends done', async () => {
    const r = await c.call('svc_asset_import', 'import', {
      data: demoFile('images/formats/density_plot.png').toString('base64'),
      mime_type: 'image/png',
    });
    expect(r.structured.enrichment_status).toBe('pending');
    const all = await waitForEnrichment(c, theme);
    expect(all.map((a) => a.enrichment_status)).toEqual(all.map(() => 'done'));
  });

  // Queries share no word with the file names (nor with the tags/alt text they match).
  it.each([
    ['hawk', 'prairie_falcon.jpg'],
    ['evergreen pine', 'silver_fir.jpg'],
    ['succulent', 'notocactus_minimus.jpg'],
    ['ale brewery', 'craft-beer.jpg'],
    ['novel reading', 'book-beside-flowers.jpg'],
  ])('semantic "%s" ranks %s first', async (query, expected) => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query });
    expect(r.error).toBeUndefined();
    expect(req(r)).toMatchObject({ mode: 'semantic', match: 'vector', degraded_from: null });
    expect(names(r)[0]).toBe(expected);
    const s = (r.structured.assets as A[]).map((a) => a.relevance!);
    expect(s).toEqual([...s].sort((x, y) => y - x));
  });

  it('applies kind/category filters inside semantic search and keeps a relevance floor', async () => {
    const hero = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      mode: 'semantic',
      query: 'mountain',
      category: 'background',
    });
    expect(names(hero).sort()).toEqual(['denali.webp', 'tanners_ridge.jpg']);
    const tall = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      mode: 'semantic',
      query: 'blossom',
      orientation: 'portrait',
    });
    const tallAll = [...(tall.structured.assets as A[]), ...(tall.structured.suggestions as A[])];
    expect(tallAll.map((a) => a.name)).toContain('cyclamen_persicum.jpg');
    expect(tallAll.map((a) => a.orientation)).toEqual(tallAll.map(() => 'portrait'));
    const none = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query: 'mountain', kind: 'svg' });
    expect(none.structured.total).toBe(0);
    // Words the vocabulary lacks embed to nothing: no leftovers are presented as matches.
    const unknown = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query: 'zxqvw blorptang' });
    expect(unknown.structured.total).toBe(0);
    const all = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query: 'hawk', limit: 50 });
    expect(all.structured.total).toBeLessThan(18);
  });

  it('similar ranks the re-encoded copy first, excludes the source, and scopes the source id', async () => {
    const r = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      mode: 'similar',
      similar_to_asset_id: ids.get('silver_fir.jpg'),
    });
    expect(r.error).toBeUndefined();
    expect(req(r)).toMatchObject({ mode: 'similar', match: 'vector' });
    expect(names(r)[0]).toBe('upload-0042.jpg');
    // the re-encoded copy is a near-duplicate (relevance ≥ 0.95); anything else is at most visually related
    expect((r.structured.assets as A[])[0]).toMatchObject({ matched_by: ['visual'] });
    expect((r.structured.assets as A[])[0]!.relevance!).toBeGreaterThanOrEqual(0.95);
    for (const a of [...(r.structured.assets as A[]).slice(1), ...(r.structured.suggestions as A[])])
      expect(a.relevance!).toBeLessThan(0.95);
    expect(names(r)).not.toContain('silver_fir.jpg');
    const back = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      mode: 'similar',
      similar_to_asset_id: ids.get('upload-0042.jpg'),
    });
    expect(names(back)[0]).toBe('silver_fir.jpg');

    const other = await startTestServer();
    try {
      const oc = await other.connect();
      const foreign = await oc.call('svc_asset_library', 'search', {
        theme_id: other.tenant.theme_id,
        mode: 'similar',
        similar_to_asset_id: ids.get('silver_fir.jpg'),
      });
      expect(foreign.error).toMatchObject({ code: 'not_found', field: 'args.similar_to_asset_id' });
    } finally {
      await other.close();
    }
  });

  it('all mode fuses words and calibrated meaning, and says how each hit matched', async () => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'raptor' });
    expect(req(r)).toMatchObject({ mode: 'all', match: 'hybrid', degraded_from: null });
    expect(names(r)[0]).toBe('prairie_falcon.jpg');
    // "hawk" is in no text at all: only the semantic half can find the falcon.
    const sem = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'hawk' });
    expect(names(sem)[0]).toBe('prairie_falcon.jpg');
    // each hybrid hit says which list found it, so agents and panels can tell real hits from leftovers
    const first = (r.structured.assets as A[])[0]!;
    expect(first.matched_by).toContain('text');
    expect(first.relevance).toBe(1);
    // a falcon is a kind of hawk (WordNet hyponym): a concept match, supported by meaning, below exact matches
    const hawk = (sem.structured.assets as A[])[0]!;
    expect(hawk.matched_by).toContain('concept');
    expect(hawk.matched_by).not.toContain('text');
    expect(hawk.relevance!).toBeGreaterThanOrEqual(0.5);
    expect(hawk.relevance!).toBeLessThan(1);
    expect(sem.structured.request).toMatchObject({ expanded_terms: expect.arrayContaining(['falcon']) });
    expect(sem.text).toMatch(/prairie_falcon\.jpg — .* — relevance 0\.\d\d \(/);
    const lexOnly = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'filename', query: 'falcon' });
    expect((lexOnly.structured.assets as A[])[0]).toMatchObject({ matched_by: ['text'], relevance: 1 });
  });

  it('keeps user metadata and adds machine alt text and auto tags only where the user gave none', async () => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 });
    const byName = new Map((r.structured.assets as A[]).map((a) => [a.name, a]));
    const falcon = byName.get('prairie_falcon.jpg')!;
    expect(falcon.alt_text).toBe('A prairie falcon perched on a rock');
    expect(falcon.tags.slice(0, 2)).toEqual(['bird', 'raptor']);
    expect(falcon.tags.length).toBeGreaterThan(2);
    const beer = byName.get('craft-beer.jpg')!;
    // machine alt text: the subject and recognised text, never colours or orientation
    expect(beer.alt_text).toMatch(/^Craft beer/);
    expect(beer.alt_text).not.toMatch(/landscape|tones/);
    // orientation is a field and filter, not a tag: a tags search for "landscape" finds the user's landscapes only
    expect(beer.tags).not.toContain('landscape');
    expect(beer.orientation).toBe('landscape');
    const tagged = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'tags', query: 'landscape' });
    expect(names(tagged).sort()).toEqual(['el_torcal_rocks.jpg', 'tanners_ridge.jpg', 'thompson-springs.jpg']);
    const fir = byName.get('silver_fir.jpg')!;
    expect(fir.alt_text).toBe('Silver fir branches');
    // A generated asset has no user alt text (a prompt is an instruction): enrichment writes it from the prompt.
    const g = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'soft teal gradient backdrop',
      style: 'abstract',
      purpose: 'section_bg',
      image_size: '512px',
      quality: 'low',
    });
    expect(g.error).toBeUndefined();
    const after = await waitForEnrichment(c, theme);
    const gen = after.find((a) => a.id === g.structured.asset_id)!;
    expect(gen.alt_text).toBe('Soft teal gradient backdrop');
  });
});

describe('degraded paths', () => {
  it('semantic and all degrade to BM25 with degraded_from when the embedder fails', async () => {
    const srv = await startTestServer({ env: { ATELIER_EMBEDDER: 'fail', ATELIER_ENRICHMENT_RETRY_BASE_MS: '20' } });
    try {
      const c = await srv.connect();
      await seedSearchLibrary(c);
      const theme = srv.tenant.theme_id;
      const all = await waitForEnrichment(c, theme);
      // Analysis succeeded, the text embedding did not: the asset says so.
      expect(all.every((a) => a.enrichment_status === 'failed' || a.enrichment_status === 'done')).toBe(true);
      const sem = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query: 'falcon' });
      expect(sem.error).toBeUndefined();
      expect(req(sem)).toMatchObject({ mode: 'all', degraded_from: 'semantic', match: 'all_terms' });
      expect(names(sem)).toEqual(['prairie_falcon.jpg']);
      const hyb = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'falcon' });
      expect(req(hyb)).toMatchObject({ mode: 'all', degraded_from: 'all' });
      // Visual similarity does not need the text embedder.
      const ids = all.map((a) => a.id);
      const sim = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'similar', similar_to_asset_id: ids[0] });
      expect(sim.error).toBeUndefined();
      expect(req(sim).mode).toBe('similar');
    } finally {
      await srv.close();
    }
  });

  it('without an embedder, semantic reports degraded lexical results', async () => {
    const srv = await startTestServer({ env: { ATELIER_EMBEDDER: 'none' } });
    try {
      const c = await srv.connect();
      const theme = srv.tenant.theme_id;
      await seedSearchLibrary(c);
      await waitForEnrichment(c, theme);
      const sem = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'semantic', query: 'falcon' });
      expect(req(sem)).toMatchObject({ mode: 'all', degraded_from: 'semantic' });
      expect(names(sem)).toEqual(['prairie_falcon.jpg']);
    } finally {
      await srv.close();
    }
  });
});
