import { assetFacetStoreContract } from '../contract/asset-facet-store-contract.ts';
import { createSqliteAssetFacetStore } from './asset-facets.ts';
import { synonymStoreContract } from '../contract/synonym-store-contract.ts';
import { createSqliteSynonymStore } from './synonyms.ts';
import { createSqliteTenancyStore } from './tenancy.ts';
import { createSqliteAssetStore } from './assets.ts';
import { lexicalIndexContract } from '../contract/lexical-index-contract.ts';
import { seedContractScopes, sqliteFiles } from '../contract/sqlite-files.ts';
import { createLexicalIndexes } from './lexical-index.ts';
import { describe, expect, it } from 'vitest';
import { CONTRACT_SCOPE } from '../contract/fixture.ts';
import { createSearchChanges } from './search-changes.ts';

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
    };
  },
});

describe('SQLite synonym rules kept per change-log head', () => {
  it('are read again once any connection adds or removes a rule (the head moves), and reused while it stands', async () => {
    const file = files.next();
    const db = files.connect(file);
    seedContractScopes(db);
    const synonyms = createSqliteSynonymStore(db);
    const operator = createSqliteSynonymStore(files.connect(file));
    const changes = createSearchChanges(db);
    const sofa = { kind: 'two_way' as const, input: null, words: ['sofa', 'couch'] };
    const head = changes.head();
    expect(await synonyms.forAssets(CONTRACT_SCOPE, head)).toEqual([]);
    const added = await operator.add(CONTRACT_SCOPE, null, sofa);
    expect(changes.head()).toBeGreaterThan(head);
    expect(await synonyms.forAssets(CONTRACT_SCOPE, changes.head())).toEqual([sofa]);
    // at one head the same list is handed out again (no read)
    expect(await synonyms.forAssets(CONTRACT_SCOPE, changes.head())).toBe(await synonyms.forAssets(CONTRACT_SCOPE, changes.head()));
    await operator.remove(CONTRACT_SCOPE, added.id);
    expect(await synonyms.forAssets(CONTRACT_SCOPE, changes.head())).toEqual([]);
  });
});
