import type { TsWeight } from './fts-tsquery.ts';
import { weightedTsvector } from './porter-tokens.ts';

/**
 * The lexical vector of a product on PostgreSQL (`products.lexical_vector`, postgres/migrations/0007):
 * the terms SQLite's `products_fts` holds (porter-tokens.ts, the planner's own stemmer), built here in
 * JavaScript because PostgreSQL has no Porter stemmer that splits text as FTS5 does. The seven FTS5
 * columns fall into PostgreSQL's four weight letters by their bm25 weights (title 10, handle 4,
 * vendor 2, product_type 3, tags 4, description 1, variants 2; server/db/sqlite/lexical-index.ts):
 *   A  title (10)      B  handle, tags (4)      C  product_type, vendor, variants (3, 2, 2)      D  description (1)
 * ranked with ts_rank_cd weights PRODUCT_RANK_WEIGHTS. Column texts are those db/sqlite/products.ts writes
 * into products_fts. Positions run on across columns with a gap of one, so a phrase never spans two
 * columns (FTS5 phrases stay in one column).
 */

/**
 * Weight letter of each FTS5 column of `products_fts` (for fts-tsquery.ts column filters; the product
 * planner runs without them, and a filter on a column sharing its letter would also match the others).
 */
export const PRODUCT_COLUMN_WEIGHTS: Readonly<Record<string, TsWeight>> = {
  title: 'A',
  handle: 'B',
  vendor: 'C',
  product_type: 'C',
  tags: 'B',
  description: 'D',
  variants: 'C',
};

/** ts_rank_cd weights {D, C, B, A}: description 1, type/vendor/variants 2.5, handle/tags 4, title 10 (the bm25 weights, scaled to A = 1). */
export const PRODUCT_RANK_WEIGHTS = '{0.1,0.25,0.4,1}';

/** The FTS5 column texts of a product, as db/sqlite/products.ts writes its products_fts row. */
export interface ProductText {
  title: string;
  handle: string;
  vendor: string;
  product_type: string;
  /** tags joined by spaces */
  tags: string;
  /** description HTML as text */
  description: string;
  /** each variant's title (but "Default Title") and SKU, joined by spaces */
  variants: string;
}

/**
 * The `lexical_vector` of a product as tsvector input text (`'lexeme':1A,4B 'other':3C`), lexemes
 * quoted and escaped; '' for a product without words.
 */
export function productLexicalVector(t: ProductText): string {
  const columns: [string, TsWeight][] = [
    [t.title, 'A'],
    [t.handle, 'B'],
    [t.vendor, 'C'],
    [t.product_type, 'C'],
    [t.tags, 'B'],
    [t.description, 'D'],
    [t.variants, 'C'],
  ];
  return weightedTsvector(columns);
}
