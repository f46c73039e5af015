import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashingEmbedder } from '../../e2e/fixtures/test-embedders.ts';
import type { ListProductsArgs, ListProductsResult } from '../../shared/schemas/product.ts';
import { openDb, type Database } from '../db/sqlite/connection.ts';
import { createLexicalIndexes } from '../db/sqlite/lexical-index.ts';
import type { ProductStore, StoreScope } from '../db/ports/product-store.ts';
import type { ProductVectorStore } from '../db/ports/product-vectors.ts';
import { startPgliteServer, type PgliteServer } from '../db/contract/pglite-server.ts';
import type { PgPool } from '../db/postgres/pool.ts';
import { createPgProductLexicalIndexes } from '../db/postgres/product-lexical-index.ts';
import { createPgProductVectors } from '../db/postgres/product-vectors.ts';
import { createPgProductStore } from '../db/postgres/products.ts';
import { createTestSchema, type TestSchema } from '../db/contract/pg-test-database.ts';
import { createSqliteProductVectors } from '../db/sqlite/product-vectors.ts';
import { createSqliteProductStore } from '../db/sqlite/products.ts';
import { createSqliteSynonymStore } from '../db/sqlite/synonyms.ts';
import { createSqliteTenancyStore } from '../db/sqlite/tenancy.ts';
import { createSqliteCalibrationStore } from '../db/sqlite/calibrations.ts';
import { createCursorCodec } from '../domain/search/cursor.ts';
import { createLogger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import { createTenant } from '../tenancy/admin.ts';
import { DEMO_CATALOG_DIR } from './seed-demo.ts';
import type { CatalogDeps } from './deps.ts';
import { getProducts } from './get.ts';
import { importCatalogFile } from './import-file.ts';
import { createProductIndexer } from './indexer.ts';
import { listProducts } from './list.ts';

// The catalog use cases (import, list_products in every mode, get_product) on the SQLite stores and on
// the PostgreSQL ones, over Shopify's demo CSVs: browsing, pages, hydrated products and semantic results
// agree exactly, lexical matches agree as sets (ts_rank_cd is not BM25: their order may differ), and
// PostgreSQL without pgvector answers semantic queries lexically with degraded_from. Synonyms and
// calibrations stay on an SQLite file on both (their PostgreSQL ports are other work).
const log = createLogger('silent');

interface Backend {
  deps: CatalogDeps;
  scope: StoreScope;
  close(): Promise<void>;
}

/** Catalog deps on `stores`, with the SQLite side (tenancy, synonyms, calibrations) on `db`, whose store `scope` holds. */
function depsOf(
  db: Database,
  scope: StoreScope,
  stores: { products: ProductStore; vectors: ProductVectorStore; lexical: CatalogDeps['search']['lexical'] },
  embedder: TextEmbedder,
): CatalogDeps {
  return {
    products: stores.products,
    vectors: stores.vectors,
    tenancy: createSqliteTenancyStore(db),
    cursors: createCursorCodec('backends'),
    embedder: () => embedder,
    indexer: createProductIndexer(stores.products, stores.vectors, () => embedder, log),
    log,
    search: {
      lexical: stores.lexical,
      synonyms: createSqliteSynonymStore(db),
      thesaurus: async () => null,
      calibrations: createSqliteCalibrationStore(db),
      matchAlpha: 0.05,
    },
  };
}

/** An SQLite database with one tenant; `scope` is its store. */
async function sqliteSide(): Promise<{ db: Database; scope: StoreScope }> {
  const db = openDb(':memory:');
  const t = await createTenant(createSqliteTenancyStore(db), 'backends');
  return { db, scope: { tenantId: t.tenant_id, workspaceId: t.workspace_id, storeId: t.store_id } };
}

async function sqliteBackend(): Promise<Backend> {
  const { db, scope } = await sqliteSide();
  const lexical = createLexicalIndexes(db);
  const stores = { products: createSqliteProductStore(db), vectors: createSqliteProductVectors(db), lexical };
  return { deps: depsOf(db, scope, stores, hashingEmbedder()), scope, close: async () => void db.close() };
}

async function pgBackend(schema: TestSchema): Promise<Backend> {
  const { db, scope } = await sqliteSide();
  const pool: PgPool = schema.pool();
  await pool.query(`INSERT INTO tenants (id, name, created_at) VALUES ($1, 'backends', now())`, [scope.tenantId]);
  await pool.query(`INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES ($1, $2, 'backends', now())`, [
    scope.workspaceId,
    scope.tenantId,
  ]);
  await pool.query(`INSERT INTO stores (id, tenant_id, workspace_id, name, created_at) VALUES ($1, $2, $3, 'backends', now())`, [
    scope.storeId,
    scope.tenantId,
    scope.workspaceId,
  ]);
  const lexical = createPgProductLexicalIndexes(pool);
  const stores = { products: createPgProductStore(pool), vectors: createPgProductVectors(pool), lexical };
  return {
    deps: depsOf(db, scope, stores, hashingEmbedder()),
    scope,
    async close() {
      db.close();
      await schema.drop();
    },
  };
}

/** Import the three demo CSVs, each into a collection named after it (as the demo seed does). */
async function seed(b: Backend): Promise<void> {
  for (const f of fs
    .readdirSync(DEMO_CATALOG_DIR)
    .filter((x) => x.endsWith('.csv'))
    .sort()) {
    const handle = path.basename(f, '.csv');
    const text = fs.readFileSync(path.join(DEMO_CATALOG_DIR, f), 'utf8');
    await importCatalogFile(b.deps, b.scope, { name: f, text }, { collection: { handle, title: handle } });
  }
}

const args = (over: Partial<ListProductsArgs>): ListProductsArgs => ({ status: ['ACTIVE'], search_mode: 'lexical', limit: 10, ...over });
/** The comparable part of a page (cursors are signed per backend, times differ). */
const page = (r: ListProductsResult) => ({ ...r, next_cursor: r.next_cursor !== null, catalog_synced_at: r.catalog_synced_at !== null });
const ids = (r: ListProductsResult): string[] => r.items.map((i) => i.product_id);

let pglite: PgliteServer;
let backends: { sqlite: Backend; pg: Backend; pg15: Backend };
beforeAll(async () => {
  pglite = await startPgliteServer();
  backends = { sqlite: await sqliteBackend(), pg: await pgBackend(await pglite.schema()), pg15: await pgBackend(await createTestSchema()) };
  for (const b of Object.values(backends)) await seed(b);
}, 180_000);
afterAll(async () => {
  for (const b of Object.values(backends ?? {})) await b.close();
  await pglite?.stop();
});

describe('catalog use cases on SQLite and PostgreSQL', () => {
  it('browses and pages identically, and hydrates identical products', async () => {
    const run = async (b: Backend) => {
      const first = await listProducts(b.deps, b.scope, args({ limit: 7 }));
      const second = await listProducts(b.deps, b.scope, args({ limit: 7, cursor: first.next_cursor! }));
      const jewels = await listProducts(b.deps, b.scope, args({ collection: 'jewelery', limit: 50 }));
      const got = await getProducts(b.deps, b.scope, { product_ids: [...ids(first).slice(0, 3), 'gid://shopify/Product/1'] });
      return { first: page(first), second: page(second), jewels: page(jewels), got: { ...got, catalog_synced_at: null } };
    };
    const sqlite = await run(backends.sqlite);
    expect(sqlite.first.items).toHaveLength(7);
    expect(sqlite.got.products).toHaveLength(3);
    expect(await run(backends.pg)).toEqual(sqlite);
    expect(await run(backends.pg15)).toEqual(sqlite);
  });

  it('matches the same products lexically, with the same corrections, totals and suggestions', async () => {
    for (const query of ['shirt', 'shrit', 'blue shirt', 'silver necklace', 'garden', 'zzzz']) {
      const run = async (b: Backend) => {
        const r = await listProducts(b.deps, b.scope, args({ query, limit: 50 }));
        // equally relevant products keep each index's own order (BM25, ts_rank): where the short list of
        // suggestions cuts through such a tie, its last members may differ, their relevance may not
        const least = Math.min(...r.suggestions.map((s) => s.relevance ?? 0));
        return {
          ...page(r),
          items: new Set(ids(r)),
          suggestions: new Set(r.suggestions.filter((s) => (s.relevance ?? 0) > least).map((s) => s.product_id)),
          suggestionRelevance: r.suggestions.map((s) => s.relevance),
        };
      };
      const sqlite = await run(backends.sqlite);
      expect(await run(backends.pg), query).toEqual(sqlite);
      expect(await run(backends.pg15), query).toEqual(sqlite);
    }
  });

  it('answers semantic, hybrid and related queries alike on pgvector, and lexically with degraded_from without it', async () => {
    for (const b of Object.values(backends)) await b.deps.indexer.embedPending(b.scope.storeId);
    const related = ids(await listProducts(backends.sqlite.deps, backends.sqlite.scope, args({ limit: 1 })))[0]!;
    for (const over of [
      { query: 'blue shirt', search_mode: 'semantic' },
      { query: 'warm winter clothes', search_mode: 'hybrid' },
      { related_to_product_id: related, search_mode: 'semantic' },
    ] as Partial<ListProductsArgs>[]) {
      // pgvector computes cosine in single precision, SQLite's re-rank in double: equal relevances to
      // 3 decimals may come in either order, so items are compared in (relevance, id) order
      const run = async (b: Backend) => {
        const r = await listProducts(b.deps, b.scope, args({ ...over, limit: 20 }));
        const items = r.items
          .map((i) => ({ ...i, relevance: Math.round((i.relevance ?? 0) * 1e3) / 1e3 }))
          .sort((x, y) => y.relevance - x.relevance || x.product_id.localeCompare(y.product_id));
        return { ...page(r), items };
      };
      const sqlite = await run(backends.sqlite);
      expect(sqlite.search_mode).toBe(over.search_mode);
      expect(sqlite.degraded_from).toBeNull();
      expect(await run(backends.pg), JSON.stringify(over)).toEqual(sqlite);
      const without = await listProducts(backends.pg15.deps, backends.pg15.scope, args({ ...over, limit: 20 }));
      expect([without.search_mode, without.degraded_from]).toEqual(['lexical', over.search_mode]);
    }
  });
});
