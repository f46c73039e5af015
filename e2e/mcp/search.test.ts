import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSearchLibrary, SEARCH_SEED, SVG_LOGO } from './fixtures.ts';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

interface A {
  id: string;
  name: string;
  kind: string;
  category: string | null;
  subtype: string | null;
  tags: string[];
  thumbnail_url: string;
  url: string;
}
const names = (r: { structured: Record<string, unknown> }): string[] => (r.structured.assets as A[]).map((a) => a.name);

describe('svc_asset_library search', () => {
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  let ids: Map<string, string>;
  beforeAll(async () => {
    // The lexical paths on a server without the enrichment module (vectors = null); vector modes: enrichment.test.ts.
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
    theme = srv.tenant.theme_id;
    ids = await seedSearchLibrary(c);
    const svg = await c.call('svc_asset_import', 'import', {
      data: Buffer.from(SVG_LOGO).toString('base64'),
      mime_type: 'image/svg+xml',
      filename: 'acme-logo.svg',
      purpose: 'logo',
    });
    expect(svg.error).toBeUndefined();
  });
  afterAll(async () => srv.close());

  it('browses the whole library newest first when query is omitted', async () => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme });
    expect(r.error).toBeUndefined();
    expect(r.structured.total).toBe(SEARCH_SEED.length + 1);
    expect(names(r)[0]).toBe('acme-logo.svg');
    expect(names(r).at(-1)).toBe('prairie_falcon.jpg');
    expect((r.structured.request as { match: string; limit: number }).match).toBe('browse');
    expect((r.structured.request as { limit: number }).limit).toBe(50);
    expect(r.text).toContain('need not wait');
  });

  it.each([
    ['all', 'falcon', 'prairie_falcon.jpg'],
    ['filename', 'torcal', 'el_torcal_rocks.jpg'],
    ['alt_text', 'limestone', 'el_torcal_rocks.jpg'],
    ['tags', 'conifer', 'silver_fir.jpg'],
    ['all', 'perched', 'prairie_falcon.jpg'],
    ['filename', 'thompson springs', 'thompson-springs.jpg'],
  ])('mode %s finds "%s"', async (mode, query, expected) => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, mode, query });
    expect(r.error).toBeUndefined();
    expect(names(r)[0]).toBe(expected);
    expect((r.structured.request as { mode: string }).mode).toBe(mode);
  });

  it('exact-field modes match only their column', async () => {
    // "limestone" is in the alt text only; "conifer" in the tags only; "torcal" in the file name only.
    for (const [mode, query] of [
      ['filename', 'limestone'],
      ['tags', 'limestone'],
      ['alt_text', 'conifer'],
      ['filename', 'conifer'],
      ['tags', 'torcal'],
      ['ocr', 'torcal'],
    ] as const) {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, mode, query });
      expect(r.structured.total, `${mode}:${query}`).toBe(0);
    }
  });

  it('ranks by BM25 and falls back to any term when all terms find nothing', async () => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'flower' });
    expect(r.structured.total).toBe(4);
    const both = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'falcon zebra' });
    expect((both.structured.request as { match: string }).match).toBe('any_term');
    expect(names(both)).toEqual(['prairie_falcon.jpg']);
    const strict = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'white anemones' });
    expect((strict.structured.request as { match: string }).match).toBe('all_terms');
    expect(names(strict)).toEqual(['wood_anemones.jpg']);
  });

  it('stems English words (Porter): plural queries find singular tags and back', async () => {
    const flowers = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'tags', query: 'flowers' });
    expect(names(flowers).sort()).toEqual([
      'cyclamen_persicum.jpg',
      'orychophragmus_violaceus.jpg',
      'polemonium_reptans.jpg',
      'wood_anemones.jpg',
    ]);
    const mountains = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'tags', query: 'mountains' });
    expect(names(mountains).sort()).toEqual(['denali.webp', 'tanners_ridge.jpg']);
    const branch = await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'alt_text', query: 'branch' });
    expect(names(branch)).toEqual(['silver_fir.jpg']);
  });

  it('treats FTS5 syntax in queries as plain words', async () => {
    for (const q of ['falcon"', 'NEAR(falcon rock)', 'name:falcon', '*', 'falcon OR', '(((']) {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: q });
      expect(r.error, q).toBeUndefined();
    }
  });

  it('filters by kind, category and subtype', async () => {
    const svg = await c.call('svc_asset_library', 'search', { theme_id: theme, kind: 'svg' });
    expect(names(svg)).toEqual(['acme-logo.svg']);
    const images = await c.call('svc_asset_library', 'search', { theme_id: theme, kind: 'image' });
    expect(images.structured.total).toBe(SEARCH_SEED.length);
    const bg = await c.call('svc_asset_library', 'search', { theme_id: theme, category: 'background' });
    expect(names(bg).sort()).toEqual(['denali.webp', 'tanners_ridge.jpg']);
    const hero = await c.call('svc_asset_library', 'search', { theme_id: theme, category: 'background', subtype: 'hero-bg' });
    expect(names(hero)).toEqual(['tanners_ridge.jpg']);
    const mountain = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'mountain', subtype: 'section-bg' });
    expect(names(mountain)).toEqual(['denali.webp']);
    const logos = await c.call('svc_asset_library', 'search', { theme_id: theme, category: 'logos_trust', kind: 'svg' });
    expect(names(logos)).toEqual(['acme-logo.svg']);
  });

  it('filters by orientation from width and height, in every mode and across pages', async () => {
    const portrait = await c.call('svc_asset_library', 'search', { theme_id: theme, orientation: 'portrait' });
    // cyclamen 512×848, orychophragmus 512×574 (0.89); portrait.jpg is 840×700 despite its name.
    expect(names(portrait).sort()).toEqual(['cyclamen_persicum.jpg', 'orychophragmus_violaceus.jpg']);
    expect(portrait.structured.assets).toEqual(expect.arrayContaining([expect.objectContaining({ orientation: 'portrait' })]));
    expect((portrait.structured.request as { orientation: string }).orientation).toBe('portrait');
    expect(portrait.text).toContain('portrait only');
    const flowers = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      query: 'flowers',
      mode: 'alt_text',
      orientation: 'portrait',
    });
    expect(names(flowers).sort()).toEqual(['cyclamen_persicum.jpg', 'orychophragmus_violaceus.jpg']);
    const square = await c.call('svc_asset_library', 'search', { theme_id: theme, orientation: 'square' });
    expect(square.structured.total).toBe(0);
    const landscape = await c.call('svc_asset_library', 'search', { theme_id: theme, orientation: 'landscape', limit: 4 });
    expect(landscape.structured.total).toBe(SEARCH_SEED.length + 1 - 2);
    const next = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      orientation: 'landscape',
      limit: 4,
      cursor: landscape.structured.next_cursor,
    });
    expect(next.error).toBeUndefined();
    expect(names(next).some((n) => names(landscape).includes(n))).toBe(false);
    // a cursor is bound to its filters
    const other = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      orientation: 'portrait',
      limit: 4,
      cursor: landscape.structured.next_cursor,
    });
    expect(other.error).toMatchObject({ code: 'invalid_argument', field: 'args.cursor' });
    const bad = await c.call('svc_asset_library', 'search', { theme_id: theme, orientation: 'wide' });
    expect(bad.error).toMatchObject({ code: 'invalid_argument', field: 'args.orientation' });
  });

  it('pages through every result exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 5, ...(cursor ? { cursor } : {}) });
      expect(r.error).toBeUndefined();
      expect(r.structured.total).toBe(SEARCH_SEED.length + 1);
      seen.push(...(r.structured.assets as A[]).map((a) => a.id));
      cursor = (r.structured.next_cursor as string | null) ?? undefined;
      expect(r.structured.has_more).toBe(cursor !== undefined);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(SEARCH_SEED.length + 1);
  });

  it('keeps pages stable when assets arrive while paging', async () => {
    const first = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'flower', limit: 2 });
    const srv2 = await srv.connect();
    const imp = await srv2.call('svc_asset_import', 'import', {
      data: Buffer.from(SVG_LOGO.replace('ACME', 'FLOWER CO')).toString('base64'),
      mime_type: 'image/svg+xml',
      filename: 'flower-co.svg',
      alt_text: 'flower shop logo',
    });
    expect(imp.error).toBeUndefined();
    const second = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      query: 'flower',
      limit: 2,
      cursor: first.structured.next_cursor,
    });
    expect(second.structured.total).toBe(4);
    expect([...names(first), ...names(second)]).not.toContain('flower-co.svg');
    const fresh = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'flower' });
    expect(fresh.structured.total).toBe(5);
  });

  it('rejects cursors from another query, forged or malformed', async () => {
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 2 });
    const cursor = r.structured.next_cursor as string;
    const other = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 2, query: 'flower', cursor });
    expect(other.error).toMatchObject({ code: 'invalid_argument', field: 'args.cursor' });
    const [body, mac] = cursor.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), o: 0 })).toString(
      'base64url',
    );
    const forged = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 2, cursor: `${forgedBody}.${mac}` });
    expect(forged.error).toMatchObject({ code: 'invalid_argument', field: 'args.cursor' });
    const junk = await c.call('svc_asset_library', 'search', { theme_id: theme, cursor: 'not-a-cursor' });
    expect(junk.error).toMatchObject({ code: 'invalid_argument', field: 'args.cursor' });
  });

  it('validates args with field-level errors', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'args.theme_id'],
      [{ theme_id: theme, limit: 0 }, 'args.limit'],
      [{ theme_id: theme, limit: 51 }, 'args.limit'],
      [{ theme_id: theme, limit: 2.5 }, 'args.limit'],
      [{ theme_id: theme, mode: 'fuzzy' }, 'args.mode'],
      [{ theme_id: theme, kind: 'audio' }, 'args.kind'],
      [{ theme_id: theme, mode: 'similar' }, 'args.similar_to_asset_id'],
      [{ theme_id: theme, category: 'background', subtype: 'trust-icon' }, 'args.subtype'],
      [{ theme_id: 'not-a-uuid' }, 'args.theme_id'],
      [{ theme_id: theme, colour: 'red' }, 'args'],
    ];
    for (const [args, field] of cases) {
      const r = await c.call('svc_asset_library', 'search', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.error?.code).toBe('invalid_argument');
      expect(r.error?.field).toBe(field);
      expect(r.error?.message.length).toBeGreaterThan(5);
    }
  });

  it('accepts the deprecated brand_kit_id alias and rejects a theme of another workspace', async () => {
    const alias = await c.call('svc_asset_library', 'search', { brand_kit_id: theme, query: 'falcon' });
    expect(names(alias)).toEqual(['prairie_falcon.jpg']);
    const other = await srv.connect();
    const foreignTheme = '00000000-0000-4000-8000-000000000000';
    const r = await other.call('svc_asset_library', 'search', { theme_id: foreignTheme });
    expect(r.error).toMatchObject({ code: 'not_found', field: 'args.theme_id' });
  });

  it('returns similar as unsupported until visual embeddings exist, and checks the source id', async () => {
    const r = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      mode: 'similar',
      similar_to_asset_id: ids.get('silver_fir.jpg'),
    });
    expect(r.isError).toBe(true);
    expect(['unsupported']).toContain(r.error?.code);
    const missing = await c.call('svc_asset_library', 'search', {
      theme_id: theme,
      mode: 'similar',
      similar_to_asset_id: '00000000-0000-4000-8000-000000000001',
    });
    expect(missing.error).toMatchObject({ code: 'not_found', field: 'args.similar_to_asset_id' });
  });

  it('serves every URL of a result from the CDN route', async () => {
    const http = await srv.listen();
    const r = await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'falcon' });
    const a = (r.structured.assets as A[])[0]!;
    for (const u of [a.url, a.thumbnail_url]) {
      expect(u.startsWith(http.url)).toBe(true);
      const res = await fetch(u);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      expect(res.headers.get('cache-control')).toContain('immutable');
    }
    expect((await fetch(`${http.url}/cdn/${'0'.repeat(64)}.jpg`)).status).toBe(404);
  });
});
