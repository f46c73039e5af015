import { describe, expect, it } from 'vitest';
import { createTenant } from '../tenancy/admin.ts';
import { createAssetQueries } from './assets.ts';
import { syntheticAsset } from './synthetic-asset.ts';
import { openDb } from './connection.ts';
import { COUNT_CAP, createLexicalIndexes } from './lexical-index.ts';
import { createTenancyQueries } from './tenancy.ts';

/** Bounded cost on frequent words: counting stops at COUNT_CAP, past it the total is an estimate and says so. */
describe('lexical index on frequent words', () => {
  const N = Math.round(COUNT_CAP * 1.5);
  const db = openDb(':memory:');
  const t = createTenant(createTenancyQueries(db), 't');
  const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id };
  const assets = createAssetQueries(db);
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      // every asset says "harbour" (twice in every tenth); every 100th also says "lighthouse"
      const alt = `harbour view${i % 10 === 0 ? ' harbour' : ''}${i % 100 === 0 ? ' lighthouse' : ''}`;
      assets.insert(syntheticAsset(i, t, { name_words: 'a', alt_text: alt, category: i % 2 ? 'background' : null, created_at: 'x' }));
    }
  })();

  it('counts exactly below the cap', async () => {
    const idx = createLexicalIndexes(db).assets(scope, {});
    expect(await idx.count('"lighthouse"')).toBe(N / 100);
    const r = await idx.search('"lighthouse"', 10);
    expect(r).toMatchObject({ total: N / 100, estimated: false });
  });

  it('estimates past the cap, says so, and ranks by BM25 within the newest COUNT_CAP matches', async () => {
    const idx = createLexicalIndexes(db).assets(scope, {});
    const n = await idx.count('"harbour"');
    expect(Math.abs(n - N) / N).toBeLessThan(0.05);
    const r = await idx.search('"harbour"', 50);
    expect(r.estimated).toBe(true);
    expect(r.seqs).toHaveLength(50);
    // BM25 prefers the documents saying "harbour" twice: every tenth seq from the newest COUNT_CAP
    expect(r.seqs.every((s) => (s - 1) % 10 === 0 && s > N - COUNT_CAP)).toBe(true);
    const filtered = await createLexicalIndexes(db).assets(scope, { category: 'background' }).search('"harbour"', 10);
    expect(filtered.estimated).toBe(false); // half of the rows: below the cap, counted exactly
    expect(filtered.total).toBe(N / 2);
  });
});
