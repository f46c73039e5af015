import type { Database } from './connection.ts';
import { productStoreContract, type CatalogStoresFixture } from './contract/product-store-contract.ts';
import { productVectorsContract } from './contract/product-vectors-contract.ts';
import { seedContractScopes, sqliteFiles } from './contract/sqlite-files.ts';
import { createSqliteProductStore, createSqliteProductVectors } from './product-store.ts';
import { createProductQueries } from './products.ts';

// The SQLite adapters of the catalog ports (products, product vectors) against their contracts
// (server/db/contract/); the PostgreSQL implementations run the same suites in
// postgres/catalog-stores.test.ts. Each case gets a fresh, migrated database file with foreign keys on;
// "another process" is a second connection to the same file (with in-memory vector partitions of its own).
const files = sqliteFiles('catalog');

const stores = (db: Database) => {
  const q = createProductQueries(db);
  return { products: createSqliteProductStore(db, q), vectors: createSqliteProductVectors(db, q) };
};

const fixture: CatalogStoresFixture = {
  async create() {
    const file = files.next();
    const db = files.connect(file);
    seedContractScopes(db);
    const add = db.prepare('INSERT INTO stores (id, tenant_id, workspace_id, name, created_at) VALUES (?, ?, ?, ?, ?)');
    for (const [id, t, w] of [
      ['store-a', 'tenant-a', 'ws-a'],
      ['store-b', 'tenant-a', 'ws-a'],
      ['store-c', 'tenant-b', 'ws-c'],
    ])
      add.run(id, t, w, id, new Date().toISOString());
    return { store: stores(db), open: async () => stores(files.connect(file)) };
  },
};

productStoreContract('SQLite', fixture);
productVectorsContract('SQLite', fixture);
