import type { Database } from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../tenancy/admin.ts';
import { syntheticAsset } from '../synthetic-asset.ts';
import { createSqliteAssetStore } from './assets.ts';
import { anyOf, phrase } from '../../domain/search/lexical-query.ts';
import { openDb } from './connection.ts';
import { createLexicalIndexes, MEMBERS_CAP } from './lexical-index.ts';
import { createSqliteProductVectors } from './product-vectors.ts';
import { createSqliteProductStore } from './products.ts';
import { createSqliteTenancyStore } from './tenancy.ts';
import { createSqliteVectorStore } from './vector-store.ts';
import { syntheticProduct } from '../synthetic-product.ts';

/**
 * Query plans of the hot search statements (EXPLAIN QUERY PLAN, https://www.sqlite.org/eqp.html). The
 * SQL is captured from the real SQLite adapters while they run, so a change of SQL or of the indexes
 * that makes SQLite scan a table (or run an FTS match once per row) fails here. A plan regression is
 * a behaviour change: at 100k assets it turns milliseconds into seconds.
 */
describe('query plans of the hot search paths', () => {
  let db: Database;
  const seen: string[] = [];
  beforeAll(async () => {
    db = openDb(':memory:');
    const prepare = db.prepare.bind(db);
    db.prepare = (sql: string) => {
      seen.push(sql);
      return prepare(sql);
    };
    const tenancy = createSqliteTenancyStore(db);
    const t = await createTenant(tenancy, 't');
    const scope = { tenantId: t.tenant_id, workspaceId: t.workspace_id };
    const store = { ...scope, storeId: t.store_id };
    const assets = createSqliteAssetStore(db);
    const vq = createSqliteVectorStore(db);
    const space = await vq.ensureSpace('asset_text', 'plan-test', 4, 'ready');
    for (let i = 0; i < 20; i++) {
      const seq = await assets.insert(
        syntheticAsset(i, t, {
          width: 10,
          height: 5,
          name: `red fox ${i}.png`,
          name_words: 'red fox',
          alt_text: 'a red fox',
          category: i % 2 ? 'background' : null,
          renditions: [{ role: 'thumbnail', width: 10, height: 5, format: 'webp', sha256: `r${i}`, size_bytes: 1 }],
        }),
      );
      await vq.put(scope, space, seq, Float32Array.from([1, i, 0, 1]));
    }
    // exercise every hot statement through the public functions
    const max = await assets.maxSeq(scope);
    await assets.bySeqs(scope, [1, 2, 3]);
    await assets.cardsBySeqs(scope, [1, 2, 3]);
    await assets.changeHead();
    await assets.searchSnapshot(scope);
    await assets.updateMetadata(scope, 1, {
      name: 'n.png',
      name_words: 'n',
      alt_text: 'edited',
      tags: [],
      purpose: null,
      category: null,
      subtype: null,
      user_fields: [],
    });
    await vq.nearest(scope, space, Float32Array.from([1, 0, 0, 0]), 10, { category: 'background', maxSeq: max }, -1);
    // a second workspace, so scope counts go through the join (one scope holding every row counts from FTS5 alone)
    const u = await createTenant(tenancy, 'u');
    await assets.insert(syntheticAsset(99, u, { name: 'fox.png', name_words: 'fox', alt_text: 'a fox' }));
    // more matches of "crowd" than a count lists (MEMBERS_CAP): its count is the capped count
    for (let i = 0; i <= MEMBERS_CAP; i++) await assets.insert(syntheticAsset(100 + i, t, { name: `crowd ${i}.png`, name_words: 'crowd' }));
    const lex = createLexicalIndexes(db);
    const fox = phrase('fox');
    const idx = lex.assets(scope, { category: 'background', maxSeq: max });
    await idx.count(fox);
    await lex.assets(scope, { category: 'background' }).count(phrase('crowd'));
    await idx.search(fox, 1);
    await lex.assets(scope, { maxSeq: max }).search(anyOf([fox, phrase('red')]), 1);
    const products = createSqliteProductStore(db);
    const productVectors = createSqliteProductVectors(db);
    const product = (gid: string) => syntheticProduct(1, { gid, title: 'Red fox print', product_type: 'Print' });
    // a product of another store too (see the second workspace above)
    await products.upsertMany(
      { tenantId: u.tenant_id, workspaceId: u.workspace_id, storeId: u.store_id },
      [product('gid://shopify/Product/2')],
      'json',
      {
        at: 'x',
        replaceCollections: false,
      },
    );
    await products.upsertMany(store, [product('gid://shopify/Product/1')], 'json', { at: 'x', replaceCollections: false });
    await productVectors.put(
      'm',
      (await productVectors.pending(null, 'm', 4, 10)).map((r) => ({
        seq: r.seq,
        storeId: r.store_id,
        sha256: r.embed_sha256,
        vector: Float32Array.from([1, 0, 0, 0]),
      })),
    );
    await productVectors.nearest(store, 'm', Float32Array.from([1, 0, 0, 0]), 10, { statuses: ['ACTIVE'], productType: 'print' });
    await products.bySeqs(store, [1]);
    await products.refsBySeqs(store, [1]);
    const crowd = Array.from({ length: MEMBERS_CAP + 1 }, (_, i) => ({
      ...syntheticProduct(10 + i, { gid: `gid://shopify/Product/${10 + i}`, title: 'Crowd print', product_type: 'Print' }),
    }));
    await products.upsertMany(store, crowd, 'json', { at: 'x', replaceCollections: false });
    const pidx = lex.products(store, { statuses: ['ACTIVE'], maxSeq: 1 });
    await pidx.count(fox);
    await lex.products(store, { statuses: ['ACTIVE'] }).count(phrase('crowd'));
    await pidx.search(fox, 1);
    // a database whose one workspace and store hold every row: the ranked pass reads FTS5 alone
    const solo = openDb(':memory:');
    const soloPrepare = solo.prepare.bind(solo);
    solo.prepare = (sql: string) => {
      seen.push(sql);
      return soloPrepare(sql);
    };
    const s = await createTenant(createSqliteTenancyStore(solo), 's');
    const soloStore = { tenantId: s.tenant_id, workspaceId: s.workspace_id, storeId: s.store_id };
    await createSqliteAssetStore(solo).insert(syntheticAsset(1, s, { name: 'fox.png', name_words: 'fox', alt_text: 'a fox' }));
    const soloProducts = createSqliteProductStore(solo);
    await soloProducts.upsertMany(soloStore, [product('gid://shopify/Product/3')], 'json', { at: 'x', replaceCollections: false });
    const soloLex = createLexicalIndexes(solo);
    await soloLex.assets(soloStore, { maxSeq: 1 }).search(fox, 1);
    await soloLex.products(soloStore, { statuses: ['ACTIVE'], maxSeq: 1 }).search(fox, 1);
    await soloLex.products(soloStore, { statuses: ['ACTIVE'], maxSeq: 1 }).search(fox, 1);
    await soloProducts.upsertMany(soloStore, [{ ...product('gid://shopify/Product/3'), status: 'DRAFT' }], 'json', {
      at: 'y',
      replaceCollections: false,
    });
    await soloLex.products(soloStore, { statuses: ['ACTIVE'], maxSeq: 1 }).search(fox, 1);
  });

  /** The plan's detail lines for the first captured statement that `pick` selects. */
  const plan = (pick: (sql: string) => boolean): string[] => {
    const sql = seen.find(pick);
    expect(sql, 'statement not captured').toBeDefined();
    const params = (sql!.match(/\?/g) ?? []).length;
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql!}`).all(...new Array<null>(params).fill(null)) as { detail: string }[]).map(
      (r) => r.detail,
    );
  };
  const noTableScan = (lines: string[]): void => {
    for (const l of lines)
      expect(l, lines.join(' | ')).not.toMatch(/^SCAN (a|assets|p|products|asset_renditions|search_changes)\b(?! VIRTUAL)/);
  };

  it('reads the snapshot bound with one probe of assets_scope_seq', () => {
    const lines = plan((s) => s.includes('max(seq)') && s.includes('FROM assets WHERE tenant_id'));
    expect(lines.join(' ')).toMatch(/SEARCH assets USING COVERING INDEX assets_scope_seq/);
  });

  it('reads the snapshot bound and the change-log head of a new result set in one statement, two probes', () => {
    const lines = plan((s) => s.includes('max(seq)') && s.includes('max(id)'));
    expect(lines.join(' | ')).toMatch(/SEARCH assets USING COVERING INDEX assets_scope_seq \(tenant_id=\? AND workspace_id=\?\)/);
    expect(lines.join(' | ')).toMatch(/SEARCH search_changes/);
    noTableScan(lines);
    // products: the table's highest rowid (every store's products are below it) and the head
    const products = plan((s) => s.includes('max(seq), 0) FROM products)') && s.includes('max(id)'));
    expect(products.join(' | ')).toMatch(/SEARCH products/);
    noTableScan(products);
  });

  it('reads a result page of cards by rowid, with its thumbnail from the renditions primary key', () => {
    const cards = plan((s) => s.startsWith('SELECT a.seq, a.id, a.kind,') && s.includes('WHERE a.seq IN ('));
    expect(cards[0]).toMatch(/^SEARCH a USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(cards.join(' | ')).toMatch(/SEARCH r USING (PRIMARY KEY|INDEX)/);
    noTableScan(cards);
  });

  it('drives asset lexical search and counts from the FTS5 match, one primary-key lookup per hit', () => {
    // the ranked pass reads the newest matches in FTS5 rowid order (descending, no sort of every match)
    const search = plan((s) => s.includes('FROM assets_fts') && s.includes('ORDER BY assets_fts.rowid DESC'));
    expect(search[0]).toMatch(/^SCAN assets_fts VIRTUAL TABLE INDEX/);
    expect(search.join(' | ')).toMatch(/SEARCH a USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(search.join(' | ')).not.toMatch(/TEMP B-TREE/);
    noTableScan(search);
    // without filters on other columns the scope check is a probe of the narrow assets_scope_seq index
    const unfiltered = plan((s) => s.includes('INDEXED BY assets_scope_seq') && s.includes('ORDER BY assets_fts.rowid DESC'));
    expect(unfiltered[0]).toMatch(/^SCAN assets_fts VIRTUAL TABLE INDEX/);
    expect(unfiltered.join(' | ')).toMatch(/SEARCH a USING COVERING INDEX assets_scope_seq \(tenant_id=\? AND workspace_id=\? AND seq=\?/);
    expect(unfiltered.join(' | ')).not.toMatch(/TEMP B-TREE/);
    // a count lists the first matches in FTS5 rowid order (no sort of every match)
    const listed = plan((s) => s.startsWith('SELECT a.seq FROM assets_fts') && s.includes(`LIMIT ${MEMBERS_CAP + 1}`));
    expect(listed[0]).toMatch(/^SCAN assets_fts VIRTUAL TABLE INDEX/);
    expect(listed.join(' | ')).toMatch(/SEARCH a USING (INTEGER PRIMARY KEY \(rowid=\?\)|COVERING INDEX assets_scope_seq)/);
    expect(listed.join(' | ')).not.toMatch(/TEMP B-TREE/);
    noTableScan(listed);
    // so does the capped count of an expression with more matches
    const count = plan((s) => s.startsWith('SELECT count(*) AS n, max(seq) AS hi FROM (SELECT') && s.includes('assets_fts')).filter(
      (l) => !/CO-ROUTINE|SCAN \(subquery/.test(l),
    );
    expect(count[0]).toMatch(/^SCAN assets_fts VIRTUAL TABLE INDEX/);
    expect(count.join(' | ')).toMatch(/SEARCH a USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(count.join(' | ')).not.toMatch(/TEMP B-TREE/);
    noTableScan(count);
  });

  it('hydrates a page by key: asset rows, and cards with their thumbnails', () => {
    // asset rows by rowid, the scope checked on the row (one B-tree descent per row, not two)
    const rows = plan((s) => s.startsWith('SELECT seq, id, tenant_id,') && s.includes('FROM assets WHERE seq IN'));
    expect(rows.join(' ')).toMatch(/SEARCH assets USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    noTableScan(rows);
    // cards the same way; each thumbnail is a probe of the renditions' primary key (asset_seq, role, width)
    const cards = plan((s) => s.startsWith('SELECT a.seq, a.id, a.kind,') && s.includes('FROM assets a WHERE a.seq IN'));
    expect(cards.join(' ')).toMatch(/SEARCH a USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(
      cards.filter((l) => /SEARCH r USING (INDEX sqlite_autoindex_asset_renditions_1|PRIMARY KEY) \(asset_seq=\? AND role=\?\)/.test(l)),
    ).toHaveLength(2);
    noTableScan(cards);
    // products by rowid: with a usable store_id index SQLite walked the store's whole handle index
    const products = plan((s) => s.startsWith('SELECT * FROM products WHERE +store_id = ? AND seq IN'));
    expect(products.join(' ')).toMatch(/SEARCH products USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    noTableScan(products);
    const refs = plan((s) => s.startsWith('SELECT seq, gid, handle FROM products WHERE +store_id = ? AND seq IN'));
    expect(refs.join(' ')).toMatch(/SEARCH products USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    noTableScan(refs);
  });

  it('reads the change log head in one probe and loads vector partitions by index', () => {
    expect(plan((s) => s.includes('max(id)') && s.includes('search_changes')).join(' ')).toMatch(/SEARCH search_changes/);
    const assetLoad = plan((s) => s.includes('CROSS JOIN vec_space_') && s.includes('a.tenant_id = ? AND a.workspace_id = ?'));
    expect(assetLoad[0]).toMatch(/^SEARCH a USING INDEX assets_scope_seq/);
    const assetOne = plan((s) => s.includes('CROSS JOIN vec_space_') && s.includes('a.seq = ?'));
    expect(assetOne[0]).toMatch(/^SEARCH a USING INTEGER PRIMARY KEY/);
    const productLoad = plan(
      (s) => s.includes('CROSS JOIN product_embeddings e') && s.includes('p.store_id = ?') && !s.includes('p.seq = ?'),
    );
    expect(productLoad[0]).toMatch(/^SEARCH p USING INDEX products_store_/);
    expect(productLoad[1]).toMatch(/^SEARCH e USING INDEX sqlite_autoindex_product_embeddings_1 \(product_seq=\? AND model_id=\?\)/);
  });

  it('drives product lexical search from the FTS5 match', () => {
    const lines = plan((s) => s.includes('FROM products_fts') && s.includes('ORDER BY products_fts.rowid DESC'));
    expect(lines[0]).toMatch(/^SCAN products_fts VIRTUAL TABLE INDEX/);
    expect(lines.join(' | ')).not.toMatch(/TEMP B-TREE/);
    // the store and filters are checked in the narrow products_seq_scope index (migration 0047), not the row
    expect(lines.join(' | ')).toMatch(/SEARCH p USING COVERING INDEX products_seq_scope \(seq=\? AND store_id=\?/);
    noTableScan(lines);
    const count = plan((s) => s.startsWith('SELECT count(*) AS n, max(seq) AS hi FROM (SELECT') && s.includes('products_fts'));
    expect(count.join(' | ')).toMatch(/SEARCH p USING COVERING INDEX products_seq_scope/);
    expect(count.join(' | ')).not.toMatch(/TEMP B-TREE/);
    const listed = plan((s) => s.startsWith('SELECT p.seq FROM products_fts') && s.includes(`LIMIT ${MEMBERS_CAP + 1}`));
    expect(listed[0]).toMatch(/^SCAN products_fts VIRTUAL TABLE INDEX/);
    expect(listed.join(' | ')).toMatch(/SEARCH p USING COVERING INDEX products_seq_scope/);
    expect(listed.join(' | ')).not.toMatch(/TEMP B-TREE/);
  });

  it('reads FTS5 alone when one scope holds every row and nothing is filtered', () => {
    // the newest matches in rowid order sorted by BM25 in SQLite, which hands back the first k seqs
    const sorted = plan((s) => s.startsWith('SELECT rowid FROM (SELECT rowid, bm25(assets_fts'));
    expect(sorted).toEqual([
      expect.stringMatching(/^CO-ROUTINE/),
      expect.stringMatching(/^SCAN assets_fts VIRTUAL TABLE INDEX/),
      expect.stringMatching(/^SCAN \(subquery/),
      'USE TEMP B-TREE FOR ORDER BY',
    ]);
  });
});
