import { describe, expect, it } from 'vitest';
import { allOf, phrase } from '../../domain/search/lexical-query.ts';
import { contractAsset, CONTRACT_SCOPE, OTHER_WORKSPACE } from '../contract/fixture.ts';
import { schemasPerCase, seedPgContractScopes } from '../contract/pg-schemas.ts';
import { createPgAssetEnrichmentStore } from './asset-enrichment.ts';
import { createPgAssetStore } from './assets.ts';
import { COUNT_CAP, createPgLexicalIndexes } from './lexical-index.ts';
import type { PgPool } from './pool.ts';

// What only the PostgreSQL lexical index has: stale vectors refreshed by readers, term counts kept by
// triggers. The behaviour both backends share is in
// ../contract/lexical-index-contract.ts.
const schemas = schemasPerCase();

async function seeded(): Promise<{ pool: PgPool; other: PgPool }> {
  const schema = await schemas.create();
  const pool = schema.pool();
  await seedPgContractScopes(pool);
  return { pool, other: schema.pool() };
}

/** asset_terms of a workspace (docs > 0) and the same counts recomputed by ts_stat from its vectors. */
async function termsAndStat(pool: PgPool, workspaceId: string): Promise<[Record<string, number>, Record<string, number>]> {
  const terms = await pool.query<{ term: string; docs: number }>(
    'SELECT term, docs FROM asset_terms WHERE workspace_id = $1 AND docs > 0',
    [workspaceId],
  );
  const stat = await pool.query<{ word: string; ndoc: number }>(
    `SELECT word, ndoc FROM ts_stat(format('SELECT lexical_vector FROM assets WHERE workspace_id = %L', $1::text))`,
    [workspaceId],
  );
  const obj = (rows: [string, number][]): Record<string, number> => Object.fromEntries(rows.sort(([a], [b]) => (a < b ? -1 : 1)));
  return [obj(terms.rows.map((r) => [r.term, r.docs])), obj(stat.rows.map((r) => [r.word, r.ndoc]))];
}

describe('PostgreSQL lexical index', () => {
  it('the asset store writes the vectors of the rows it inserts and updates: nothing is left for readers', async () => {
    const { pool } = await seeded();
    const assets = createPgAssetStore(pool);
    const stale = async (): Promise<number> =>
      (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM assets WHERE lexical_vector IS NULL')).rows[0]!.n;
    const a = contractAsset({ tags: ['harbour'] });
    const seq = await assets.insert(a);
    await assets.insert(contractAsset({ name: 'RedFox.jpg' }));
    expect(await stale()).toBe(0);
    await assets.updateMetadata(CONTRACT_SCOPE, seq, { ...a, name_words: '', tags: ['pier'], alt_text: 'low tide' });
    expect(await stale()).toBe(0);
    expect(await assets.backfillNameWords((n) => (n === 'RedFox.jpg' ? 'red fox' : ''))).toBe(1);
    expect(await stale()).toBe(0);
    const terms = await pool.query<{ term: string }>('SELECT term FROM asset_terms WHERE docs > 0 ORDER BY term');
    expect(terms.rows.map((r) => r.term)).toEqual(['fox', 'jpg', 'low', 'pier', 'red', 'redfox', 'tide', 'untitl']);
  });

  it('an analysis written while a search runs leaves the asset findable: the vector is written in its transaction', async () => {
    const { pool } = await seeded();
    const assets = createPgAssetStore(pool);
    const seq = await assets.insert(contractAsset({ name: 'fir.jpg', name_words: 'fir' }));
    // a request's index has refreshed the scope (its first question) before enrichment commits; a vector
    // left null by that commit would hide the asset from every later question of the same request
    const idx = createPgLexicalIndexes(pool).assets(CONTRACT_SCOPE, {});
    expect(await idx.known(['fir'])).toEqual(new Set(['fir']));
    await createPgAssetEnrichmentStore(pool).writeAnalysis(seq, {
      colors: [],
      orientation: 'landscape',
      ocrText: 'EVERGREEN',
      ocrConfidence: 90,
      autoTags: ['tree'],
      machineAltText: 'a fir tree in snow',
      caption: null,
      captionModelId: null,
    });
    expect((await idx.search(phrase('fir'), 10)).seqs).toEqual([seq]);
    expect(await idx.count(allOf([phrase('evergreen'), phrase('snow')]))).toBe(1);
  });

  it('indexes rows written without a vector on the first read, without logging a search change', async () => {
    const { pool } = await seeded();
    const assets = createPgAssetStore(pool);
    const seq = await assets.insert(contractAsset({ tags: ['harbour'] }));
    // rows from before migration 0010 or written by raw SQL have no vector
    await pool.query('UPDATE assets SET lexical_vector = NULL');
    await pool.query('UPDATE assets SET ocr_text = $1 WHERE seq = $2', ['LOW TIDE', seq]);
    const head = await assets.changeHead();
    const idx = createPgLexicalIndexes(pool).assets(CONTRACT_SCOPE, {});
    expect(await idx.count(allOf([phrase('tide'), phrase('harbour')]))).toBe(1);
    expect(await idx.known(['harbour', 'tide'])).toEqual(new Set(['harbour', 'tide']));
    expect((await pool.query('SELECT count(*)::int AS n FROM assets WHERE lexical_vector IS NULL')).rows[0]).toEqual({ n: 0 });
    expect(await assets.changeHead()).toBe(head);
  });

  it('keeps term counts equal to the vectors after inserts, updates, multi-row statements, deletes and a deleted workspace', async () => {
    const { pool } = await seeded();
    const assets = createPgAssetStore(pool);
    const words = ['oak', 'pine', 'birch', 'maple', 'cedar', 'harbour', 'boat'];
    const seqs: number[] = [];
    for (let i = 0; i < 40; i++) {
      const scope = i % 3 === 0 ? OTHER_WORKSPACE : CONTRACT_SCOPE;
      const pick = (k: number): string => words[(i * 7 + k * 3) % words.length]!;
      seqs.push(
        await assets.insert(contractAsset({ name: `${pick(1)}.jpg`, tags: [pick(2), pick(3)], alt_text: `a ${pick(4)} view` }, scope)),
      );
    }
    await pool.query(`UPDATE assets SET auto_tags = '["boat", "blue"]', ocr_text = 'pine harbour' WHERE seq % 2 = 0`);
    await assets.deleteMany(CONTRACT_SCOPE, seqs.slice(0, 10));
    await pool.query('UPDATE assets SET lexical_vector = NULL WHERE seq % 5 = 0');
    const idx = createPgLexicalIndexes(pool).assets(CONTRACT_SCOPE, {});
    expect(await idx.size()).toBeGreaterThan(0);
    await createPgLexicalIndexes(pool).assets(OTHER_WORKSPACE, {}).size();
    for (const ws of ['ws-a', 'ws-b']) {
      const [terms, stat] = await termsAndStat(pool, ws);
      expect(Object.keys(terms).length).toBeGreaterThan(5);
      expect(terms).toEqual(stat);
    }
    await pool.query(`DELETE FROM workspaces WHERE id = 'ws-b'`);
    expect((await pool.query(`SELECT count(*)::int AS n FROM asset_terms WHERE workspace_id = 'ws-b'`)).rows[0]).toEqual({ n: 0 });
  });

  it('two processes refreshing the same stale rows at once count each term once', async () => {
    const { pool, other } = await seeded();
    const assets = createPgAssetStore(pool);
    for (let i = 0; i < 60; i++) await assets.insert(contractAsset({ tags: [`w${i % 7}`, 'common'] }));
    await pool.query('UPDATE assets SET lexical_vector = NULL');
    const [a, b] = await Promise.all([
      createPgLexicalIndexes(pool).assets(CONTRACT_SCOPE, {}).count(phrase('common')),
      createPgLexicalIndexes(other).assets(CONTRACT_SCOPE, {}).count(phrase('common')),
    ]);
    expect([a, b]).toEqual([60, 60]);
    const [terms, stat] = await termsAndStat(pool, 'ws-a');
    expect(terms).toEqual(stat);
    expect(terms.common).toBe(60);
  });

  it('counts exactly up to COUNT_CAP matches and estimates past it, saying so', async () => {
    const { pool } = await seeded();
    const N = Math.round(COUNT_CAP * 1.5);
    // every asset says "harbour", every 100th "lighthouse"; every other one is a banner
    await pool.query(
      `INSERT INTO assets (id, tenant_id, workspace_id, kind, format, mime_type, size_bytes, sha256, source_sha256, name, alt_text, category, source, created_at)
       SELECT gen_random_uuid()::text, 'tenant-a', 'ws-a', 'image', 'png', 'image/png', 1, 's' || i, 's' || i, 'a.png',
         'harbour view' || CASE WHEN i % 100 = 0 THEN ' lighthouse' ELSE '' END, CASE WHEN i % 2 = 0 THEN 'banner' END, 'seed', now()
       FROM generate_series(1, $1::int) i`,
      [N],
    );
    const idx = (f = {}) => createPgLexicalIndexes(pool).assets(CONTRACT_SCOPE, f);
    const harbour = phrase('harbour');
    expect(await idx().count(phrase('lighthouse'))).toBe(N / 100);
    expect(await idx().search(phrase('lighthouse'), 10)).toMatchObject({ total: N / 100 });
    const n = await idx().count(harbour);
    expect(Math.abs(n - N) / N).toBeLessThan(0.05);
    const r = await idx().search(harbour, 50);
    expect(r).toMatchObject({ estimated: true });
    expect(r.seqs).toHaveLength(50);
    expect(Math.abs(r.total - N) / N).toBeLessThan(0.05);
    // half the rows: below the cap, counted exactly
    expect(await idx({ category: 'banner' }).search(harbour, 10)).toMatchObject({ total: N / 2 });
    const few = await idx({ category: 'banner', maxSeq: 1000 }).search(harbour, 10);
    const banners = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM assets WHERE seq <= 1000 AND category = 'banner'`);
    expect(few.total).toBe(banners.rows[0]!.n);
  });
});
