import { assetEnrichmentStoreContract } from '../contract/asset-enrichment-store-contract.ts';
import { calibrationStoreContract } from '../contract/calibration-store-contract.ts';
import { schemasPerCase, seedPgContractScopes } from '../contract/pg-schemas.ts';
import { createPgAssetEnrichmentStore } from './asset-enrichment.ts';
import { createPgAssetStore } from './assets.ts';
import { createPgCalibrationStore } from './calibrations.ts';
import { createPgJobQueue } from './job-queue.ts';

// The PostgreSQL implementations of the enrichment ports against the contracts the SQLite adapters pass
// (../enrichment-stores.test.ts), on the machine's real PostgreSQL 15 (ATELIER_TEST_POSTGRES_URL
// overrides). Each case gets a fresh migrated schema, dropped after it; "another process" is a second pool.
const schemas = schemasPerCase();

assetEnrichmentStoreContract('PostgreSQL', {
  async create() {
    const schema = await schemas.create();
    const pool = schema.pool();
    await seedPgContractScopes(pool);
    return {
      enrichment: createPgAssetEnrichmentStore(pool),
      jobs: createPgJobQueue(pool),
      assets: createPgAssetStore(pool),
      open: async () => createPgAssetEnrichmentStore(schema.pool()),
    };
  },
});

calibrationStoreContract('PostgreSQL', schemas.fixture(createPgCalibrationStore));
