import type { Database } from 'better-sqlite3';
import { openDb } from './db/sqlite/connection.ts';
import { createSqliteAssetEnrichmentStore } from './db/sqlite/asset-enrichment.ts';
import { createSqliteAssetFacetStore } from './db/sqlite/asset-facets.ts';
import { createSqliteAssetStore } from './db/sqlite/assets.ts';
import { createSqliteCalibrationStore } from './db/sqlite/calibrations.ts';
import { createSqliteCreditStore } from './db/sqlite/credits.ts';
import { createSqliteOAuthStore } from './db/sqlite/oauth-store.ts';
import { createJobQueue } from './db/sqlite/enrichment-jobs.ts';
import { createLexicalIndexes } from './db/sqlite/lexical-index.ts';
import { createSqlitePickerStore } from './db/sqlite/pickers.ts';
import { createSqliteToolTaskStore } from './db/sqlite/tool-tasks.ts';
import type { AssetEnrichmentStore } from './db/ports/asset-enrichment-store.ts';
import type { AssetFacetStore } from './db/ports/asset-facet-store.ts';
import type { AssetFilters, AssetStore } from './db/ports/asset-store.ts';
import type { CalibrationStore } from './db/ports/calibration-store.ts';
import type { CreditStore } from './db/ports/credit-store.ts';
import type { JobQueue } from './db/ports/job-queue.ts';
import type { OAuthStore } from './db/ports/oauth-store.ts';
import type { PickerStore } from './db/ports/picker-store.ts';
import type { ProductFilters, ProductStore, StoreScope } from './db/ports/product-store.ts';
import type { ProductVectorStore } from './db/ports/product-vectors.ts';
import type { SynonymStore } from './db/ports/synonym-store.ts';
import type { TenancyStore } from './db/ports/tenancy-store.ts';
import type { ToolTaskStore } from './db/ports/tool-task-store.ts';
import type { UploadStore } from './db/ports/upload-store.ts';
import type { VectorStore } from './db/ports/vector-store.ts';
import type { PgPool } from './db/postgres/pool.ts';
import { createSqliteProductVectors } from './db/sqlite/product-vectors.ts';
import { createSqliteProductStore } from './db/sqlite/products.ts';
import { createSqliteSynonymStore } from './db/sqlite/synonyms.ts';
import { createSqliteTenancyStore } from './db/sqlite/tenancy.ts';
import { createSqliteUploadStore } from './db/sqlite/uploads.ts';
import { createSqliteVectorStore } from './db/sqlite/vector-store.ts';
import type { LexicalIndex } from './domain/search/lexical.ts';
import type { Scope } from './domain/scope.ts';
import type { TestHooks } from './test-hooks.ts';
import { PartitionBudget } from './vector-scan/partition-budget.ts';

/** The SQLite connection or the PostgreSQL pool behind a `Stores`. */
export type DatabaseHandle = { kind: 'sqlite'; db: Database } | { kind: 'postgres'; pool: PgPool };

/**
 * The SQLite connection of SQLite stores: for operator tools and tests that read or copy the file directly.
 * @throws Error on PostgreSQL (ATELIER_DATABASE_URL): there is no SQLite file then
 */
export function sqliteOf(stores: Pick<Stores, 'database'>): Database {
  if (stores.database.kind !== 'sqlite')
    throw new Error('this server runs on PostgreSQL (ATELIER_DATABASE_URL): there is no SQLite database to open');
  return stores.database.db;
}

/**
 * Every durable port the use cases run on, from one backend: the embedded SQLite file (default) or
 * PostgreSQL (`ATELIER_DATABASE_URL`). The use cases see only these interfaces; which backend answers
 * is decided here, once, by configuration.
 */
export interface Stores {
  backend: 'sqlite' | 'postgres';
  /**
   * The connection the ports run on, for what keeps its own tables beside them (the rate-limit and
   * sign-in counters of rate-limiter-flexible) and for operator tools that copy a whole database
   * (`atelier migrate-backend`, `sqliteOf`).
   */
  database: DatabaseHandle;
  tenancy: TenancyStore;
  assets: AssetStore;
  /** the lexical planner's port over assets and over products (FTS5, or the PostgreSQL lexicon) */
  lexical: {
    assets(scope: Scope, f: AssetFilters, head?: number): LexicalIndex;
    products(scope: StoreScope, f: ProductFilters, head?: number): LexicalIndex;
  };
  synonyms: SynonymStore;
  facets: AssetFacetStore;
  enrichment: AssetEnrichmentStore;
  calibrations: CalibrationStore;
  vectors: VectorStore;
  jobs: JobQueue;
  uploads: UploadStore;
  pickers: PickerStore;
  /** tool calls run as MCP tasks (server/mcp/tasks.ts) */
  toolTasks: ToolTaskStore;
  credits: CreditStore;
  products: ProductStore;
  productVectors: ProductVectorStore;
  /** the built-in OAuth authorization server's state (server/oauth/) */
  oauth: OAuthStore;
  /** close the connection(s) */
  close(): Promise<void>;
}

/**
 * The SQLite stores over one connection (migrations run on open). One `LexicalIndexes`, one set of
 * product vectors and one asset vector store are shared, so their in-memory partitions and vocabularies
 * stay in step with the writes; the asset and product vector partitions share one memory bound.
 * @param dbPath the database file (`:memory:` for a throwaway database)
 * @param o.vectorMemoryBytes bound of the in-memory vector partitions together, bytes (default
 *   DEFAULT_PARTITION_BUDGET_BYTES; the least recently searched are dropped beyond it and reload on use)
 */
export function openSqliteStores(dbPath: string, hooks?: TestHooks, o: { vectorMemoryBytes?: number } = {}): Stores {
  const db = openDb(dbPath, hooks);
  const lexical = createLexicalIndexes(db);
  const budget = new PartitionBudget(o.vectorMemoryBytes);
  return {
    backend: 'sqlite',
    database: { kind: 'sqlite', db },
    tenancy: createSqliteTenancyStore(db),
    assets: createSqliteAssetStore(db),
    lexical,
    synonyms: createSqliteSynonymStore(db),
    facets: createSqliteAssetFacetStore(db),
    enrichment: createSqliteAssetEnrichmentStore(db),
    calibrations: createSqliteCalibrationStore(db),
    vectors: createSqliteVectorStore(db, { budget }),
    jobs: createJobQueue(db),
    uploads: createSqliteUploadStore(db),
    pickers: createSqlitePickerStore(db),
    toolTasks: createSqliteToolTaskStore(db),
    credits: createSqliteCreditStore(db),
    products: createSqliteProductStore(db),
    productVectors: createSqliteProductVectors(db, budget),
    oauth: createSqliteOAuthStore(db),
    close: async () => void db.close(),
  };
}
