import type { Database } from './connection.ts';
import { productLexicalContract } from '../contract/product-lexical-contract.ts';
import { CATALOG_SCOPES, productStoreContract, type CatalogStoresFixture } from '../contract/product-store-contract.ts';
import { productVectorsContract } from '../contract/product-vectors-contract.ts';
import { seedContractScopes, sqliteFiles } from '../contract/sqlite-files.ts';
import { createLexicalIndexes } from './lexical-index.ts';
import { createSqliteProductVectors } from './product-vectors.ts';
import { createSqliteProductStore } from './products.ts';

// The SQLite adapters of the catalog ports (products, product vectors) against their contracts
// (server/db/contract/); the PostgreSQL implementations run the same suites in
// postgres/catalog-stores.test.ts. Each case gets a fresh, migrated database file with foreign keys on;
// "another process" is a second connection to the same file (with in-memory vector partitions of its own).
const files = sqliteFiles('catalog');

const stores = (db: Database) => ({ products: createSqliteProductStore(db), vectors: createSqliteProductVectors(db) });

/** A fresh database file with the tenants, workspaces and stores of CATALOG_SCOPES. */
function seededFile(): { file: string; db: Database } {
  const file = files.next();
  const db = files.connect(file);
  seedContractScopes(db);
  const add = db.prepare('INSERT INTO stores (id, tenant_id, workspace_id, name, created_at) VALUES (?, ?, ?, ?, ?)');
  for (const s of Object.values(CATALOG_SCOPES)) add.run(s.storeId, s.tenantId, s.workspaceId, s.storeId, new Date().toISOString());
  return { file, db };
}

const fixture: CatalogStoresFixture = {
  async create() {
    const { file, db } = seededFile();
    return { store: stores(db), open: async () => stores(files.connect(file)) };
  },
};

productStoreContract('SQLite', fixture);
productVectorsContract('SQLite', fixture);
productLexicalContract('SQLite FTS5', {
  async create() {
    const { file, db } = seededFile();
    const handle = (d: Database) => {
      const lexical = createLexicalIndexes(d);
      return { products: createSqliteProductStore(d), lexical: lexical.products.bind(lexical) };
    };
    return { store: handle(db), open: async () => handle(files.connect(file)) };
  },
});
