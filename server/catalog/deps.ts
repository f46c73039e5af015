import type { ProductFilters, ProductStore, StoreScope } from '../db/ports/product-store.ts';
import type { ProductVectorStore } from '../db/ports/product-vectors.ts';
import type { CalibrationStore } from '../db/ports/calibration-store.ts';
import type { SynonymStore } from '../db/ports/synonym-store.ts';
import type { Thesaurus } from '../domain/search/concepts.ts';
import type { LexicalIndex } from '../domain/search/lexical.ts';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';
import type { CursorCodec } from '../domain/search/cursor.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import type { ProductIndexer } from './indexer.ts';

/** What the catalog use cases need; built once in the composition root. */
export interface CatalogDeps {
  products: ProductStore;
  /** product embeddings (semantic and related search) */
  vectors: ProductVectorStore;
  tenancy: TenancyStore;
  cursors: CursorCodec;
  /** The current text embedder (null = none configured); read on every call so a swap takes effect at once. */
  embedder(): TextEmbedder | null;
  indexer: ProductIndexer;
  log: Logger;
  /** the search slice shared with the asset library */
  search: CatalogSearchDeps;
}

/** What product search shares with asset search: the lexical port, synonym lists, WordNet, calibration. */
export interface CatalogSearchDeps {
  /**
   * the product lexical index of a request's store and filters: SQLite FTS5 (db/sqlite/lexical-index.ts
   * `createLexicalIndexes(db)`) or PostgreSQL (db/postgres/product-lexical-index.ts)
   */
  lexical: { products(scope: StoreScope, f: ProductFilters, head?: number): LexicalIndex };
  synonyms: SynonymStore;
  thesaurus: () => Promise<Thesaurus | null>;
  calibrations: CalibrationStore;
  /** family-wise false-match rate of semantic acceptance */
  matchAlpha: number;
}
