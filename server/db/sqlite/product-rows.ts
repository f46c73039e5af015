import type { ProductFilters } from '../ports/product-store.ts';

/**
 * The SQLite SQL of `list_products` filters, shared by the query module (db/sqlite/products.ts) and the lexical
 * port (db/sqlite/lexical-index.ts). The row shapes of the catalog read model (products, variants, images) are
 * the port's (db/ports/product-store.ts).
 */

/** SQL conditions (` AND …`) and parameters of list_products filters on `p`. */
export function productFilterSql(f: ProductFilters): { sql: string; params: unknown[] } {
  const parts = [`p.status IN (${f.statuses.map(() => '?').join(',')})`];
  const params: unknown[] = [...f.statuses];
  if (f.collection) {
    parts.push('EXISTS (SELECT 1 FROM collection_products cp WHERE cp.store_id = p.store_id AND cp.handle = ? AND cp.product_seq = p.seq)');
    params.push(f.collection.toLowerCase());
  }
  if (f.productType) {
    parts.push('p.product_type = ? COLLATE NOCASE');
    params.push(f.productType);
  }
  if (f.maxSeq !== undefined) {
    parts.push('p.seq <= ?');
    params.push(f.maxSeq);
  }
  if (f.excludeSeq !== undefined) {
    parts.push('p.seq <> ?');
    params.push(f.excludeSeq);
  }
  return { sql: ` AND ${parts.join(' AND ')}`, params };
}
