import type { ProductFilters, ProductRow, VariantRow } from '../ports/product-store.ts';

/**
 * The SQLite columns of the catalog read model (migration 0002), converted to the port's row shapes
 * (db/ports/product-store.ts) by the product store (db/sqlite/products.ts), and the SQL of
 * `list_products` filters, shared by the product store and the lexical port (db/sqlite/lexical-tables.ts).
 * The columns keep lists and objects as JSON text and `available` as 0/1: STRICT tables have no JSON or
 * boolean type.
 */

/** A `products` row as SQLite returns it (`SELECT *`). */
export type ProductColumns = Omit<ProductRow, 'tags' | 'options' | 'selling_plan_groups'> & {
  tags: string;
  options: string;
  selling_plan_groups: string;
};

/** A `product_variants` row as SQLite returns it (`SELECT *`). */
export type VariantColumns = Omit<VariantRow, 'available' | 'selected_options'> & { available: number; selected_options: string };

/** The port's product row of a `products` row: JSON text parsed (the writer stored `JSON.stringify` of the input's values). */
export const productRowOf = (r: ProductColumns): ProductRow => ({
  ...r,
  tags: JSON.parse(r.tags) as ProductRow['tags'],
  options: JSON.parse(r.options) as ProductRow['options'],
  selling_plan_groups: JSON.parse(r.selling_plan_groups) as ProductRow['selling_plan_groups'],
});

/** The port's variant row of a `product_variants` row: `available` as a boolean, `selected_options` parsed. */
export const variantRowOf = (r: VariantColumns): VariantRow => ({
  ...r,
  available: r.available === 1,
  selected_options: JSON.parse(r.selected_options) as VariantRow['selected_options'],
});

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
