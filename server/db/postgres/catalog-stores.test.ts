import { describe, expect, it } from 'vitest';
import { pgliteServerPerSuite, schemasPerCase, seedPgContractScopes } from '../contract/pg-schemas.ts';
import { productLexicalContract } from '../contract/product-lexical-contract.ts';
import { CATALOG_SCOPES, productStoreContract, type CatalogStoresFixture } from '../contract/product-store-contract.ts';
import { productVectorsContract } from '../contract/product-vectors-contract.ts';
import { VectorStoreUnavailableError } from '../ports/vector-store.ts';
import { syntheticProduct } from '../synthetic-product.ts';
import type { PgPool } from './pool.ts';
import { createPgProductLexicalIndexes } from './product-lexical-index.ts';
import { createPgProductVectors } from './product-vectors.ts';
import { createPgProductStore } from './products.ts';
import { createTestSchema, type TestSchema } from '../contract/pg-test-database.ts';

// The PostgreSQL catalog ports against the contracts the SQLite adapters pass (../catalog-stores.test.ts):
// the product store and its lexical index on the machine's real PostgreSQL 15, the product vectors on PGlite with pgvector
// served over the wire protocol (pglite-server.ts; PostgreSQL 15 here has no pgvector). Each case gets a
// fresh migrated schema, dropped after it; "another process" is a second connection pool.
const schemas = schemasPerCase();

const stores = (pool: PgPool) => ({ products: createPgProductStore(pool), vectors: createPgProductVectors(pool) });

/** The tenants, workspaces and stores of CATALOG_SCOPES. */
async function seed(pool: PgPool): Promise<void> {
  await seedPgContractScopes(pool);
  for (const s of Object.values(CATALOG_SCOPES))
    await pool.query('INSERT INTO stores (id, tenant_id, workspace_id, name, created_at) VALUES ($1, $2, $3, $1, now())', [
      s.storeId,
      s.tenantId,
      s.workspaceId,
    ]);
}

const fixtureOn = (schema: () => Promise<TestSchema>): CatalogStoresFixture => ({
  async create() {
    const sc = schemas.track(await schema());
    const pool = sc.pool();
    await seed(pool);
    return { store: stores(pool), open: async () => stores(sc.pool()) };
  },
});

productStoreContract('PostgreSQL', fixtureOn(createTestSchema));
productLexicalContract('PostgreSQL', {
  async create() {
    const sc = schemas.track(await createTestSchema());
    const pool = sc.pool();
    await seed(pool);
    const handle = (pl: PgPool) => {
      const lexical = createPgProductLexicalIndexes(pl);
      return { products: createPgProductStore(pl), lexical: lexical.products.bind(lexical) };
    };
    return { store: handle(pool), open: async () => handle(sc.pool()) };
  },
});

const server = pgliteServerPerSuite();
productVectorsContract(
  'PostgreSQL + pgvector (PGlite)',
  fixtureOn(() => server.schema()),
);

describe('PostgreSQL product vectors without the vector extension (the machine PostgreSQL 15)', () => {
  it('keeps storing vectors, says why it cannot search, and refuses the search', async () => {
    const { store: s } = await fixtureOn(createTestSchema).create();
    const scope = CATALOG_SCOPES.a;
    const [seq] = await s.products.upsertMany(scope, [syntheticProduct(1)], 'json', {
      at: new Date().toISOString(),
      replaceCollections: false,
    });
    const [row] = await s.vectors.pending('store-a', 'm', 2, 10);
    await s.vectors.put('m', [{ seq: seq!, storeId: 'store-a', sha256: row!.embed_sha256, vector: Float32Array.of(1, 0.5) }]);
    expect(await s.vectors.get(scope, seq!, 'm', 2)).toEqual(Float32Array.of(1, 0.5));
    expect(await s.vectors.count(scope, 'm', 2)).toBe(1);
    const a = await s.vectors.available();
    expect(a.ok).toBe(false);
    const reason = a.ok ? '' : a.reason;
    expect(reason).toMatch(/^the vector extension \(pgvector\) is not installed/);
    await expect(s.vectors.nearest(scope, 'm', Float32Array.of(1, 0), 5, { statuses: ['ACTIVE'] })).rejects.toThrow(
      VectorStoreUnavailableError,
    );
    await expect(s.vectors.nearest(scope, 'm', Float32Array.of(1, 0), 5, { statuses: ['ACTIVE'] })).rejects.toThrow(reason);
  });
});
