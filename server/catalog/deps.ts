import type { ProductQueries } from '../db/products.ts';
import type { TenancyQueries } from '../db/tenancy.ts';
import type { CursorCodec } from '../domain/cursor.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import type { ProductIndexer } from './indexer.ts';

/** What the catalog use cases need; built once in the composition root. */
export interface CatalogDeps {
  products: ProductQueries;
  tenancy: TenancyQueries;
  cursors: CursorCodec;
  /** The current text embedder (null = none configured); read on every call so a swap takes effect at once. */
  embedder(): TextEmbedder | null;
  indexer: ProductIndexer;
  log: Logger;
}
