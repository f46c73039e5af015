/**
 * The PostgreSQL side of the composition root's stores (`Stores`, server/stores.ts), in its own module so
 * that a server on the embedded SQLite default never loads the PostgreSQL driver and adapters: app.ts
 * imports this module only when ATELIER_DATABASE_URL is set.
 */
import { createPgAssetEnrichmentStore } from './db/postgres/asset-enrichment.ts';
import { createPgAssetFacetStore } from './db/postgres/asset-facets.ts';
import { createPgAssetStore } from './db/postgres/assets.ts';
import { createPgCalibrationStore } from './db/postgres/calibrations.ts';
import { createPgCreditStore } from './db/postgres/credits.ts';
import { createPgJobQueue } from './db/postgres/job-queue.ts';
import { createPgLexicalIndexes } from './db/postgres/lexical-index.ts';
import { ensurePgSchema, migratePostgres } from './db/postgres/migrate.ts';
import { createPgOAuthStore } from './db/postgres/oauth-state.ts';
import { createPgPickerStore } from './db/postgres/pickers.ts';
import { createPgPool, type PgPool } from './db/postgres/pool.ts';
import { createPgProductLexicalIndexes } from './db/postgres/product-lexical-index.ts';
import { createPgProductVectors } from './db/postgres/product-vectors.ts';
import { createPgProductStore } from './db/postgres/products.ts';
import { createPgSynonymStore } from './db/postgres/synonyms.ts';
import { createPgTenancyStore } from './db/postgres/tenancy.ts';
import { createPgToolTaskStore } from './db/postgres/tool-tasks.ts';
import { createPgUploadStore } from './db/postgres/uploads.ts';
import { createPgVectorStore } from './db/postgres/vector-store.ts';
import type { Stores } from './stores.ts';
import type { TestHooks } from './test-hooks.ts';

/**
 * The PostgreSQL stores over one pool, after applying the migrations (idempotent; concurrent starts
 * serialise on an advisory lock). Vectors need the pgvector extension: without it the vector stores say
 * so (`available()`), semantic search degrades and everything else works.
 * @param o.schema search_path of every connection, created when missing (null = the role's default)
 * @param hooks TEST ONLY pause points (the migrator's `migrate`)
 * @throws the driver's error when PostgreSQL is unreachable or a migration fails (nothing is applied then:
 *   the pending migrations run in one transaction)
 */
export async function openPgStores(o: { url: string; schema: string | null; poolMax: number }, hooks?: TestHooks): Promise<Stores> {
  // search_path is set on connect (not as a startup option, which PGlite ignores); public stays on it for
  // the extensions (unaccent, vector), which the migrations create there
  const schema = o.schema;
  const pool: PgPool = createPgPool(o.url, {
    max: o.poolMax,
    ...(schema ? { onConnect: async (c) => void (await c.query(`SET search_path TO ${schema}, public`)) } : {}),
  });
  try {
    // a named schema is created on first start (its name is validated by config: a plain identifier)
    if (schema) await ensurePgSchema(pool, schema);
    await migratePostgres(pool, undefined, hooks);
  } catch (e) {
    await pool.end();
    throw e;
  }
  const assetLexicon = createPgLexicalIndexes(pool);
  const productLexicon = createPgProductLexicalIndexes(pool);
  return {
    backend: 'postgres',
    database: { kind: 'postgres', pool },
    tenancy: createPgTenancyStore(pool),
    assets: createPgAssetStore(pool),
    lexical: { assets: (scope, f) => assetLexicon.assets(scope, f), products: (scope, f) => productLexicon.products(scope, f) },
    synonyms: createPgSynonymStore(pool),
    facets: createPgAssetFacetStore(pool),
    enrichment: createPgAssetEnrichmentStore(pool),
    calibrations: createPgCalibrationStore(pool),
    vectors: createPgVectorStore(pool),
    jobs: createPgJobQueue(pool),
    uploads: createPgUploadStore(pool),
    pickers: createPgPickerStore(pool),
    toolTasks: createPgToolTaskStore(pool),
    credits: createPgCreditStore(pool),
    products: createPgProductStore(pool),
    productVectors: createPgProductVectors(pool),
    oauth: createPgOAuthStore(pool),
    close: () => pool.end(),
  };
}
