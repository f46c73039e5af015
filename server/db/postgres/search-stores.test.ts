import { assetFacetStoreContract } from '../contract/asset-facet-store-contract.ts';
import { createPgAssetFacetStore } from './asset-facets.ts';
import { synonymStoreContract } from '../contract/synonym-store-contract.ts';
import { createPgSynonymStore } from './synonyms.ts';
import { createPgTenancyStore } from './tenancy.ts';
import { lexicalIndexContract } from '../contract/lexical-index-contract.ts';
import { schemasPerCase, seedPgContractScopes } from '../contract/pg-schemas.ts';
import { createPgAssetStore } from './assets.ts';
import { createPgLexicalIndexes } from './lexical-index.ts';

// The PostgreSQL search stores against the contracts the SQLite ones pass (../search-stores.test.ts),
// on the machine's real PostgreSQL 15 (ATELIER_TEST_POSTGRES_URL overrides). Each case gets a fresh
// migrated schema, dropped after it.
const schemas = schemasPerCase();

lexicalIndexContract('PostgreSQL', {
  async create() {
    const pool = (await schemas.create()).pool();
    await seedPgContractScopes(pool);
    return {
      indexes: createPgLexicalIndexes(pool),
      assets: createPgAssetStore(pool),
      async setEnrichedText(seq, ocrText, autoTags) {
        await pool.query('UPDATE assets SET ocr_text = $1, auto_tags = $2 WHERE seq = $3', [ocrText, JSON.stringify(autoTags), seq]);
      },
    };
  },
});

synonymStoreContract('PostgreSQL', {
  async create() {
    const pool = (await schemas.create()).pool();
    await seedPgContractScopes(pool);
    return { synonyms: createPgSynonymStore(pool), tenancy: createPgTenancyStore(pool) };
  },
});

assetFacetStoreContract('PostgreSQL', {
  async create() {
    const pool = (await schemas.create()).pool();
    await seedPgContractScopes(pool);
    return {
      facets: createPgAssetFacetStore(pool),
      assets: createPgAssetStore(pool),
    };
  },
});
