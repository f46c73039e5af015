import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CatalogProductInput } from '../../domain/catalog.ts';
import { phrase } from '../../domain/search/lexical-query.ts';
import { createTenant } from '../../tenancy/admin.ts';
import { openDb } from './connection.ts';
import { COUNT_CAP, createLexicalIndexes } from './lexical-index.ts';
import { createSqliteProductStore } from './products.ts';
import type { StoreScope } from '../ports/product-store.ts';
import { syntheticProduct } from '../synthetic-product.ts';
import { createSqliteTenancyStore } from './tenancy.ts';

const product = (i: number, status: 'ACTIVE' | 'DRAFT'): CatalogProductInput =>
  syntheticProduct(i, {
    // every seventh says "fox" twice: BM25 ranks those first
    title: i % 7 === 0 ? `Fox fox print ${i}` : `Red fox print ${i}`,
    status,
    product_type: i % 2 ? 'Print' : 'Poster',
  });

const fox = phrase('fox');

/** A store holding every product of the database: the newest `drafts` products are drafts, the rest active. */
async function catalog(file: string, n: number, drafts: number) {
  const db = openDb(file);
  const t = await createTenant(createSqliteTenancyStore(db), 't');
  const scope: StoreScope = { tenantId: t.tenant_id, workspaceId: t.workspace_id, storeId: t.store_id };
  const products = createSqliteProductStore(db);
  const all = Array.from({ length: n }, (_, i) => product(i + 1, i >= n - drafts ? 'DRAFT' : 'ACTIVE'));
  await products.upsertMany(scope, all, 'json', { at: 'x', replaceCollections: false });
  return { db, scope, products };
}

/** The ranked pass as the join states it: newest `lim` matches of the store under the filters, by BM25. */
function reference(db: ReturnType<typeof openDb>, scope: StoreScope, statuses: string[], lim: number, k: number): number[] {
  const rows = db
    .prepare(
      `SELECT p.seq, bm25(products_fts, 10.0, 4.0, 2.0, 3.0, 4.0, 1.0, 2.0) AS r FROM products_fts CROSS JOIN products p ON p.seq = products_fts.rowid
       WHERE products_fts MATCH '"fox"' AND p.store_id = ? AND p.status IN (${statuses.map(() => '?').join(',')}) ORDER BY products_fts.rowid DESC LIMIT ?`,
    )
    .all(scope.storeId, ...statuses, lim) as { seq: number; r: number }[];
  return rows
    .sort((a, b) => a.r - b.r || b.seq - a.seq)
    .slice(0, k)
    .map((r) => r.seq);
}

/**
 * When the store holds every product, a filtered search ranks the newest COUNT_CAP matches under the
 * filters by BM25 (db/sqlite/lexical-index.ts), and follows status changes.
 */
describe('product lexical search of a store holding every product', () => {
  it('ranks the newest COUNT_CAP active matches by BM25', async () => {
    // the newest 1000 are drafts: the newest COUNT_CAP matches hold fewer than COUNT_CAP active rows
    const { db, scope } = await catalog(':memory:', 6000, 1000);
    const idx = createLexicalIndexes(db).products(scope, { statuses: ['ACTIVE'] });
    const r = await idx.search(fox, 100);
    expect(r.seqs).toEqual(reference(db, scope, ['ACTIVE'], COUNT_CAP, 100));
    expect(r.seqs.every((s) => s <= 5000)).toBe(true);
    expect(r.estimated).toBe(true); // past the cap under a filter: estimated, as through the join
    const both = await createLexicalIndexes(db)
      .products(scope, { statuses: ['ACTIVE', 'DRAFT'] })
      .search(fox, 100);
    expect(both.seqs).toEqual(reference(db, scope, ['ACTIVE', 'DRAFT'], COUNT_CAP, 100));
    // a selective filter (only drafts: most rows filtered out) goes through the join, with the same answer
    const drafts = await createLexicalIndexes(db)
      .products(scope, { statuses: ['DRAFT'] })
      .search(fox, 100);
    expect(drafts.seqs).toEqual(reference(db, scope, ['DRAFT'], COUNT_CAP, 100));
    expect(drafts.total).toBe(1000);
  });

  it('follows status changes of this and other connections', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-lex-'));
    try {
      const file = path.join(dir, 'db.sqlite');
      const { db, scope, products } = await catalog(file, 300, 0);
      const lex = createLexicalIndexes(db);
      const first = await lex.products(scope, { statuses: ['ACTIVE'] }).search(fox, 5);
      expect(first.total).toBe(300);
      const top = first.seqs[0]!;
      // this connection drafts the best match
      await products.upsertMany(scope, [product(top, 'DRAFT')], 'json', { at: 'y', replaceCollections: false });
      const second = await lex.products(scope, { statuses: ['ACTIVE'] }).search(fox, 5);
      expect(second.seqs).not.toContain(top);
      expect(second.total).toBe(299);
      // another connection makes it active again, and drafts the next one
      const other = openDb(file);
      other.prepare("UPDATE products SET status = 'ACTIVE' WHERE seq = ?").run(top);
      other.prepare("UPDATE products SET status = 'DRAFT' WHERE seq = ?").run(second.seqs[0]);
      other.close();
      const third = await lex.products(scope, { statuses: ['ACTIVE'] }).search(fox, 5);
      expect(third.seqs).toContain(top);
      expect(third.seqs).not.toContain(second.seqs[0]);
      expect(third.seqs).toEqual(reference(db, scope, ['ACTIVE'], COUNT_CAP, 5));
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
