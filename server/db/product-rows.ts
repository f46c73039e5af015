import type { ProductStatus } from '../../shared/schemas/product.ts';
import type { Scope } from '../domain/scope.ts';

/**
 * Row shapes of the catalog read model (products, variants, images) and the SQL of `list_products`
 * filters, shared by the query module (db/products.ts) and the lexical port (db/lexical-index.ts).
 */

/** Scope of every catalog query: tenant, workspace and the store resolved by `storeScopeFor` (rule 8). */
export type StoreScope = Scope & { storeId: string };

export interface ProductRow {
  seq: number;
  store_id: string;
  gid: string;
  handle: string;
  title: string;
  description_html: string;
  description_text: string;
  status: ProductStatus;
  total_inventory: number;
  product_type: string;
  vendor: string;
  tags: string;
  options: string;
  selling_plan_groups: string;
  source: 'sync' | 'csv' | 'json';
  platform_updated_at: string | null;
  synced_at: string;
  embed_text: string;
  embed_sha256: string;
}
export interface VariantRow {
  product_seq: number;
  position: number;
  gid: string;
  title: string;
  price: string;
  compare_at_price: string | null;
  sku: string;
  available: 0 | 1;
  inventory_quantity: number | null;
  image_url: string | null;
  selected_options: string;
}
export interface ImageRow {
  product_seq: number;
  position: number;
  url: string;
  alt_text: string;
  width: number | null;
  height: number | null;
}

/** Filters of `list_products`; `maxSeq` is the cursor's snapshot bound. */
export interface ProductFilters {
  statuses: ProductStatus[];
  collection?: string | undefined;
  productType?: string | undefined;
  maxSeq?: number | undefined;
  excludeSeq?: number | undefined;
}

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
