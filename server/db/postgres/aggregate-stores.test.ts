import { afterAll } from 'vitest';
import { assetStoreContract, type AssetStoreFixture } from '../contract/asset-store-contract.ts';
import type { StoreFixture } from '../contract/fixture.ts';
import { tenancyStoreContract } from '../contract/tenancy-store-contract.ts';
import { createPgAssetStore } from './assets.ts';
import type { PgPool } from './pool.ts';
import { createPgTenancyStore } from './tenancy.ts';
import { createTestSchema, type TestSchema } from './test-database.ts';

// The PostgreSQL implementations of the aggregate ports (tenancy, assets) against the contracts the
// SQLite adapters pass (../aggregate-stores.test.ts), on the machine's real PostgreSQL 15
// (ATELIER_TEST_POSTGRES_URL overrides). Each store gets a fresh migrated schema, dropped at the end;
// "another process" is a second connection pool.
const schemas: TestSchema[] = [];
afterAll(async () => {
  await Promise.all(schemas.map((s) => s.drop()));
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

const assetFixture: AssetStoreFixture = {
  async create() {
    const schema = await createTestSchema();
    schemas.push(schema);
    const pool = schema.pool();
    // the tenants and workspaces the asset contract uses (see AssetStoreFixture)
    await pool.query(`INSERT INTO tenants (id, name, created_at) VALUES ('tenant-a', 'a', now()), ('tenant-b', 'b', now())`);
    await pool.query(
      `INSERT INTO workspaces (id, tenant_id, name, created_at) VALUES
         ('ws-a', 'tenant-a', 'a', now()), ('ws-b', 'tenant-a', 'b', now()), ('ws-c', 'tenant-b', 'c', now())`,
    );
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
