import { afterEach } from 'vitest';
import { assetStoreContract, type AssetStoreFixture } from '../contract/asset-store-contract.ts';
import { assetTextSearchContract } from '../contract/asset-text-search-contract.ts';
import type { StoreFixture } from '../contract/fixture.ts';
import { tenancyStoreContract } from '../contract/tenancy-store-contract.ts';
import { createPgAssetTextSearch } from './asset-text-search.ts';
import { createPgAssetStore } from './assets.ts';
import type { PgPool } from './pool.ts';
import { createPgTenancyStore } from './tenancy.ts';
import { createTestSchema, type TestSchema } from './test-database.ts';

// The PostgreSQL implementations of the aggregate ports (tenancy, assets) against the contracts the
// SQLite adapters pass (../aggregate-stores.test.ts), on the machine's real PostgreSQL 15
// (ATELIER_TEST_POSTGRES_URL overrides). Each store gets a fresh migrated schema, dropped at the end;
// "another process" is a second connection pool.
// Schemas (and their pools) go after each case, so a run holds a few connections at a time, not one
// pool per case: the PostgreSQL of the machine is shared (max_connections 100).
const schemas: TestSchema[] = [];
afterEach(async () => {
  await Promise.all(schemas.splice(0).map((s) => s.drop()));
});

function fixture<S>(make: (pool: PgPool) => S): StoreFixture<S> {
  return {
    async create() {
      const schema = await createTestSchema();
      schemas.push(schema);
      return { store: make(schema.pool()), open: async () => make(schema.pool()) };
    },
  };
}

tenancyStoreContract('PostgreSQL', fixture(createPgTenancyStore));

/** A fresh migrated schema with the tenants and workspaces the asset contracts use (see AssetStoreFixture). */
async function seededSchema(): Promise<{ schema: TestSchema; pool: PgPool }> {
  const schema = await createTestSchema();
  schemas.push(schema);
  const pool = schema.pool();
  await pool.query(`INSERT INTO tenants (id, name, created_at) VALUES ('tenant-a', 'a', now()), ('tenant-b', 'b', now())`);
  await pool.query(
    `INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES
       ('ws-a', 'tenant-a', 'a', now()), ('ws-b', 'tenant-a', 'b', now()), ('ws-c', 'tenant-b', 'c', now())`,
  );
  return { schema, pool };
}

const assetFixture: AssetStoreFixture = {
  async create() {
    const { schema, pool } = await seededSchema();
    return {
      store: createPgAssetStore(pool),
      open: async () => createPgAssetStore(schema.pool()),
      async setMachineAltText(seq, text) {
        await pool.query(
          `INSERT INTO asset_enrichment (asset_seq, machine_alt_text, updated_at) VALUES ($1, $2, now())
           ON CONFLICT (asset_seq) DO UPDATE SET machine_alt_text = excluded.machine_alt_text`,
          [seq, text],
        );
      },
    };
  },
};
assetStoreContract('PostgreSQL', assetFixture);

assetTextSearchContract('PostgreSQL', {
  async create() {
    const { pool } = await seededSchema();
    return {
      search: createPgAssetTextSearch(pool),
      assets: createPgAssetStore(pool),
      async setEnrichedText(seq, ocrText, autoTags) {
        await pool.query('UPDATE assets SET ocr_text = $1, auto_tags = $2 WHERE seq = $3', [ocrText, JSON.stringify(autoTags), seq]);
      },
    };
  },
});
