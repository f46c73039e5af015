import { createSqliteAssetEnrichmentStore } from './asset-enrichment.ts';
import { createSqliteAssetStore } from './assets.ts';
import { createSqliteCalibrationStore } from './calibrations.ts';
import { createJobQueue } from './enrichment-jobs.ts';
import { assetEnrichmentStoreContract } from '../contract/asset-enrichment-store-contract.ts';
import { calibrationStoreContract } from '../contract/calibration-store-contract.ts';
import { seedContractScopes, sqliteFiles } from '../contract/sqlite-files.ts';

// The SQLite adapters of the enrichment ports (enrichment columns and facts, calibrations) against their
// contracts; the PostgreSQL implementations run the same suites in postgres/enrichment-stores.test.ts.
// Each case gets a fresh migrated database file; "another process" is a second connection.
const files = sqliteFiles('enrichment');

assetEnrichmentStoreContract('SQLite', {
  async create() {
    const file = files.next();
    const db = files.connect(file);
    seedContractScopes(db);
    return {
      enrichment: createSqliteAssetEnrichmentStore(db),
      jobs: createJobQueue(db),
      assets: createSqliteAssetStore(db),
      open: async () => createSqliteAssetEnrichmentStore(files.connect(file)),
    };
  },
});

calibrationStoreContract('SQLite', {
  async create() {
    const file = files.next();
    return {
      store: createSqliteCalibrationStore(files.connect(file)),
      open: async () => createSqliteCalibrationStore(files.connect(file)),
    };
  },
});
