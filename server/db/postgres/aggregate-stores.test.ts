import { afterAll } from 'vitest';
import type { StoreFixture } from '../contract/fixture.ts';
import { tenancyStoreContract } from '../contract/tenancy-store-contract.ts';
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
