import { creditStoreContract } from '../contract/credit-store-contract.ts';
import { jobQueueContract } from '../contract/job-queue-contract.ts';
import { schemasPerCase } from '../contract/pg-schemas.ts';
import { pickerStoreContract } from '../contract/picker-store-contract.ts';
import { toolTaskStoreContract } from '../contract/tool-task-store-contract.ts';
import { uploadStoreContract } from '../contract/upload-store-contract.ts';
import { createPgCreditStore } from './credits.ts';
import { createPgJobQueue } from './job-queue.ts';
import { createPgPickerStore } from './pickers.ts';
import { createPgToolTaskStore } from './tool-tasks.ts';
import { createPgUploadStore } from './uploads.ts';

// The PostgreSQL implementations of the state ports against the contracts the SQLite ones pass
// (../state-stores.test.ts), on the real PostgreSQL 15 of the machine (ATELIER_TEST_POSTGRES_URL
// overrides). Each store gets a fresh schema with a random name, dropped at the end; "another process"
// is a second connection pool. Without a reachable PostgreSQL every case fails with how to start it.
const schemas = schemasPerCase();

pickerStoreContract('PostgreSQL', schemas.fixture(createPgPickerStore));
uploadStoreContract('PostgreSQL', schemas.fixture(createPgUploadStore));
creditStoreContract('PostgreSQL', schemas.fixture(createPgCreditStore));
jobQueueContract('PostgreSQL', schemas.fixture(createPgJobQueue));
// tool_tasks.tenant_id references tenants(id): the contract's tenant `t` is inserted first
toolTaskStoreContract('PostgreSQL', {
  async create() {
    const schema = await schemas.create();
    await schema.pool().query(`INSERT INTO tenants (id, name, created_at) VALUES ('t', 't', now())`);
    return { store: createPgToolTaskStore(schema.pool()), open: async () => createPgToolTaskStore(schema.pool()) };
  },
});
