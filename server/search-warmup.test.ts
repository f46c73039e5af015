import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createSqliteAssetStore } from './db/sqlite/assets.ts';
import { createSqliteCalibrationStore } from './db/sqlite/calibrations.ts';
import { openDb } from './db/sqlite/connection.ts';
import { syntheticAsset } from './db/synthetic-asset.ts';
import { syntheticProduct } from './db/synthetic-product.ts';
import { createSqliteTenancyStore } from './db/sqlite/tenancy.ts';
import { createSqliteVectorStore } from './db/sqlite/vector-store.ts';
import { createAssetVectorSearch } from './enrichment/vector-search.ts';
import { createLogger } from './log.ts';
import { createStaticEmbedder, defaultWordVectorCacheDir } from './providers/embedder-static.ts';
import { warmSearch } from './search-warmup.ts';
import { createTenant } from './tenancy/admin.ts';
import { PartitionBudget } from './vector-scan/partition-budget.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A SQLite file with three workspaces: two with embedded assets (the second written last), one with none. */
async function library() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-warm-'));
  dirs.push(dir);
  const db = openDb(path.join(dir, 'db.sqlite'));
  const tenancy = createSqliteTenancyStore(db);
  const [a, b, empty] = [await createTenant(tenancy, 'a'), await createTenant(tenancy, 'b'), await createTenant(tenancy, 'c')];
  const embedder = createStaticEmbedder({ cacheDir: defaultWordVectorCacheDir() });
  const budget = new PartitionBudget();
  const vectorStore = createSqliteVectorStore(db, { budget });
  const space = await vectorStore.ensureSpace('asset_text', embedder.modelId, embedder.dimensions, 'ready');
  const assets = createSqliteAssetStore(db);
  const texts = ['red chair in a sunny room', 'blue lake at dawn', 'wooden table and lamp', 'green fern leaves'];
  const vectors = await embedder.embed(texts);
  for (const [i, t] of [a, b].entries())
    for (const [j, text] of texts.entries()) {
      const seq = await assets.insert(syntheticAsset(i * 10 + j, t, { alt_text: text }));
      await vectorStore.put({ tenantId: t.tenant_id, workspaceId: t.workspace_id }, space, seq, vectors[j]!);
    }
  const search = createAssetVectorSearch({
    vectors: vectorStore,
    assets,
    calibrations: createSqliteCalibrationStore(db),
    embedder,
    textSpace: async () => space,
    visualSpace: async () => null,
    thesaurus: async () => null,
    computeVisual: async () => null,
    log: createLogger('silent'),
  });
  return {
    db,
    assets,
    search,
    embedder,
    budget,
    scopes: [a, b, empty].map((t) => ({ tenantId: t.tenant_id, workspaceId: t.workspace_id })),
  };
}

describe('search warm-up before serving', () => {
  it('loads WordNet, the embedder and the vectors of the workspaces holding assets, newest first', async () => {
    const l = await library();
    expect(await l.assets.recentScopes(8)).toEqual([l.scopes[1], l.scopes[0]]);
    expect(l.budget.partitions).toBe(0);
    let wordnetLoads = 0;
    const thesaurus = async () => (wordnetLoads++, {});
    const report = await warmSearch(
      { assets: l.assets, vectors: l.search, localEmbedder: l.embedder, thesaurus },
      60_000,
      createLogger('silent'),
    );
    expect(report.thesaurus).toBe(true);
    expect(wordnetLoads).toBe(1);
    expect(report.embedder).toBe(true);
    expect(report.workspaces).toBe(2);
    // both workspaces' partitions are in memory: the first semantic search of each loads nothing
    expect(l.budget.partitions).toBe(2);
    const hits = await l.search.semantic(l.scopes[1]!, 'lake', {}, 5);
    expect(hits?.hits.length).toBeGreaterThan(0);
    expect(l.budget.partitions).toBe(2);
    // a workspace without vectors has nothing to load
    expect(await l.search.warm!(l.scopes[2]!)).toBe(false);
  });

  it('loads nothing with no budget, and stops starting steps once the budget is spent', async () => {
    const l = await library();
    const off = await warmSearch({ assets: l.assets, vectors: l.search, localEmbedder: l.embedder }, 0, createLogger('silent'));
    expect(off).toMatchObject({ embedder: false, thesaurus: false, workspaces: 0 });
    expect(l.budget.partitions).toBe(0);
    // a budget spent by the first step: WordNet loads, no workspace is started
    const slow = async () => {
      const t = Date.now();
      while (Date.now() - t < 30);
      return {};
    };
    const short = await warmSearch(
      { thesaurus: slow, assets: l.assets, vectors: l.search, localEmbedder: l.embedder },
      10,
      createLogger('silent'),
    );
    expect(short).toMatchObject({ thesaurus: true, embedder: false, workspaces: 0 });
    expect(l.budget.partitions).toBe(0);
  });

  it('reports a failure and lets searches load the rest', async () => {
    const l = await library();
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (s: string) => void lines.push(s) });
    const broken = { recentScopes: async () => Promise.reject(new Error('disk gone')) };
    const r = await warmSearch({ assets: broken, vectors: l.search, localEmbedder: null }, 60_000, log);
    expect(r.workspaces).toBe(0);
    expect(lines.join('')).toMatch(/search warm-up stopped.*disk gone|disk gone.*search warm-up stopped/);
  });
});

describe('search warm-up of the product catalog', () => {
  it('loads the product vectors of the stores holding embedded products, and skips a store not embedded yet', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-warm-app-'));
    dirs.push(dir);
    const app = await buildApp(
      loadConfig({ ATELIER_DATA_DIR: dir, ATELIER_LOG_LEVEL: 'silent', ATELIER_ENRICHMENT: '0' }),
      createLogger('silent'),
    );
    try {
      const tenancy = app.library.tenancy;
      const [a, b] = [await createTenant(tenancy, 'a'), await createTenant(tenancy, 'b')];
      const scopeOf = (t: typeof a) => ({ tenantId: t.tenant_id, workspaceId: t.workspace_id, storeId: t.store_id });
      const at = { at: '2026-11-27T00:00:00.000Z', replaceCollections: false };
      const titles = ['Ocean blue linen shirt', 'Walnut side table', 'Ceramic coffee mug'];
      await app.stores.products.upsertMany(
        scopeOf(a),
        titles.map((title, i) => syntheticProduct(i + 1, { title })),
        'json',
        at,
      );
      await app.catalog.deps.indexer.embedPending(a.store_id);
      // store b's products are written last but not embedded: nothing to load there yet
      await app.stores.products.upsertMany(scopeOf(b), [syntheticProduct(9, { title: 'Linen throw pillow' })], 'json', at);
      expect(await app.stores.products.recentStores(8)).toEqual([scopeOf(b), scopeOf(a)]);
      const report = await app.warmSearch(60_000);
      expect(report.stores).toBe(1);
      expect(report.workspaces).toBe(0);
      expect(await app.catalog.warm(scopeOf(a))).toBe(true);
      expect(await app.catalog.warm(scopeOf(b))).toBe(false);
    } finally {
      await app.close();
    }
  });
});
