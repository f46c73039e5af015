import { assetFacetStoreContract } from './contract/asset-facet-store-contract.ts';
import { createSqliteAssetFacetStore } from './asset-facet-store.ts';
import { synonymStoreContract } from './contract/synonym-store-contract.ts';
import { createSqliteSynonymStore } from './synonym-store.ts';
import { createSqliteTenancyStore } from './tenancy-store.ts';
import { createSqliteAssetStore } from './asset-store.ts';
import { lexicalIndexContract } from './contract/lexical-index-contract.ts';
import { seedContractScopes, sqliteFiles } from './contract/sqlite-files.ts';
import { createLexicalIndexes } from './lexical-index.ts';

// The SQLite side of the search stores (lexical index over FTS5) against their contracts
// (server/db/contract/); the PostgreSQL implementations run the same suites in
// postgres/search-stores.test.ts. Each case gets a fresh, migrated database file with foreign keys on.
const files = sqliteFiles('search');

lexicalIndexContract('SQLite', {
  async create() {
    const db = files.connect(files.next());
    seedContractScopes(db);
    return {
      indexes: createLexicalIndexes(db),
      assets: createSqliteAssetStore(db),
      async setEnrichedText(seq, ocrText, autoTags) {
        db.prepare('UPDATE assets SET ocr_text = ?, auto_tags = ? WHERE seq = ?').run(ocrText, JSON.stringify(autoTags), seq);
      },
    };
  },
});

synonymStoreContract('SQLite', {
  async create() {
    const db = files.connect(files.next());
    seedContractScopes(db);
    return { synonyms: createSqliteSynonymStore(db), tenancy: createSqliteTenancyStore(db) };
  },
});

assetFacetStoreContract('SQLite', {
  async create() {
    const db = files.connect(files.next());
    seedContractScopes(db);
    return {
      facets: createSqliteAssetFacetStore(db),
      assets: createSqliteAssetStore(db),
      async setEnrichedText(seq, ocrText, autoTags) {
        db.prepare('UPDATE assets SET ocr_text = ?, auto_tags = ? WHERE seq = ?').run(ocrText, JSON.stringify(autoTags), seq);
      },
    };
  },
});
