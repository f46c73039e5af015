import { afterEach } from 'vitest';
import { creditStoreContract } from '../contract/credit-store-contract.ts';
import type { StoreFixture } from '../contract/fixture.ts';
import { jobQueueContract } from '../contract/job-queue-contract.ts';
import { pickerStoreContract } from '../contract/picker-store-contract.ts';
import { uploadStoreContract } from '../contract/upload-store-contract.ts';
import { createPgCreditStore } from './credits.ts';
import { createPgJobQueue } from './job-queue.ts';
import { createPgPickerStore } from './pickers.ts';
import type { PgPool } from './pool.ts';
import { createTestSchema, type TestSchema } from './test-database.ts';
import { createPgUploadStore } from './uploads.ts';

// The PostgreSQL implementations of the state ports against the contracts the SQLite ones pass
// (../state-stores.test.ts), on the real PostgreSQL 15 of the machine (ATELIER_TEST_POSTGRES_URL
// overrides). Each store gets a fresh schema with a random name, dropped at the end; "another process"
// is a second connection pool. Without a reachable PostgreSQL every case fails with how to start it.
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

pickerStoreContract('PostgreSQL', fixture(createPgPickerStore));
uploadStoreContract('PostgreSQL', fixture(createPgUploadStore));
creditStoreContract('PostgreSQL', fixture(createPgCreditStore));
jobQueueContract('PostgreSQL', fixture(createPgJobQueue));
