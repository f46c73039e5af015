import type { Database } from 'better-sqlite3';
import { createProductQueries } from '../db/products.ts';
import type { TenancyQueries } from '../db/tenancy.ts';
import type { CursorCodec } from '../domain/cursor.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import type { CatalogDeps } from './deps.ts';
import { createProductIndexer } from './indexer.ts';

/** The catalog module as the composition root holds it. */
export interface Catalog {
  deps: CatalogDeps;
  /**
   * Replace the embedder the catalog uses (e.g. a reconfigured backend, or a test double at the
   * process boundary). Products are re-embedded in the background under the new model id.
   */
  setEmbedder(embedder: TextEmbedder | null): void;
  close(): Promise<void>;
}

/**
 * Build the catalog: product queries, the embedding indexer (background backfill of products without
 * a vector for the current model starts at once) and the deps the router and CLI use.
 */
export function createCatalog(opts: { db: Database; tenancy: TenancyQueries; cursors: CursorCodec; embedder: TextEmbedder | null; log: Logger }): Catalog {
  let current = opts.embedder;
  const products = createProductQueries(opts.db);
  const indexer = createProductIndexer(products, () => current, opts.log);
  const deps: CatalogDeps = { products, tenancy: opts.tenancy, cursors: opts.cursors, embedder: () => current, indexer, log: opts.log };
  indexer.schedule(null);
  return {
    deps,
    setEmbedder(e) {
      current = e;
      indexer.schedule(null);
    },
    close: () => indexer.close(),
  };
}
