import { assetStoreContract, type AssetStoreFixture } from '../contract/asset-store-contract.ts';
import { assetLexicalIndexContract } from '../contract/asset-lexical-index-contract.ts';
import { schemasPerCase, seedPgContractScopes } from '../contract/pg-schemas.ts';
import { tenancyStoreContract } from '../contract/tenancy-store-contract.ts';
import { createPgAssetStore } from './assets.ts';
import { createPgLexicalIndexes } from './lexical-index.ts';
import type { PgPool } from './pool.ts';
import { createPgTenancyStore } from './tenancy.ts';
import type { TestSchema } from '../contract/pg-test-database.ts';

// The PostgreSQL implementations of the aggregate ports (tenancy, assets) against the contracts the
// SQLite adapters pass (../aggregate-stores.test.ts), on the machine's real PostgreSQL 15
// (ATELIER_TEST_POSTGRES_URL overrides). Each store gets a fresh migrated schema, dropped at the end;
// "another process" is a second connection pool.
const schemas = schemasPerCase();

tenancyStoreContract('PostgreSQL', schemas.fixture(createPgTenancyStore));

/** A fresh migrated schema with the tenants and workspaces the asset contracts use (see AssetStoreFixture). */
async function seededSchema(): Promise<{ schema: TestSchema; pool: PgPool }> {
  const schema = await schemas.create();
  const pool = schema.pool();
  await seedPgContractScopes(pool);
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

assetLexicalIndexContract('PostgreSQL', {
  async create() {
    const { pool } = await seededSchema();
    const indexes = createPgLexicalIndexes(pool);
    return {
      lexical: (scope, f) => indexes.assets(scope, f),
      assets: createPgAssetStore(pool),
      async setEnrichedText(seq, ocrText, autoTags) {
        await pool.query('UPDATE assets SET ocr_text = $1, auto_tags = $2 WHERE seq = $3', [ocrText, JSON.stringify(autoTags), seq]);
      },
    };
  },
});
