import type { Scope } from '../../domain/scope.ts';
import { assetFilterSql } from './assets.ts';
import { productFilterSql } from './product-rows.ts';
import type { AssetFilters } from '../ports/asset-store.ts';
import type { ProductFilters, StoreScope } from '../ports/product-store.ts';

/**
 * The asset and product FTS5 tables as the lexical index (db/sqlite/lexical-index.ts) searches them: the SQL of
 * a scope's matches, filters and snapshot bound, and the columns with their bm25 weights.
 */

/** One FTS5 table of a scope, as the generic port needs it. */
export interface FtsTable {
  /** the content table (products, assets) */
  table: string;
  /** the content table with the alias the SQL fragments use (`assets a`) */
  rows: string;
  fts: string;
  vocab: string;
  /** `FROM … WHERE <fts> MATCH ? AND <scope>` and the scope parameters (after the MATCH parameter) */
  from: string;
  scopeParams: unknown[];
  /** the snapshot bound (` AND x.seq <= ?`) */
  snapshot: { sql: string; params: unknown[] };
  /** the snapshot bound's seq (undefined = none) */
  snapshotMax: number | undefined;
  /** the request's filters (` AND …`) */
  filters: { sql: string; params: unknown[] };
  /** the unfiltered scope: `FROM … WHERE <scope>` for counting documents */
  all: string;
  /** the FTS5 rowid column (= the row's seq) */
  rowid: string;
  /** the FTS5 columns in declaration order and their bm25 weights */
  columns: readonly string[];
  weights: readonly number[];
  seq: string;
  /** one document's searchable text, as an SQL expression */
  text: string;
}

/** The asset FTS5 table's columns (migration 0010) and their bm25 weights: name 4, alt text 2, tags 3, OCR 1. */
export const ASSET_FTS_COLUMNS = { columns: ['name', 'alt_text', 'tags', 'ocr_text'], weights: [4, 2, 3, 1] } as const;
/** The product FTS5 table's columns (migration 0011) and their bm25 weights. */
export const PRODUCT_FTS_COLUMNS = {
  columns: ['title', 'handle', 'vendor', 'product_type', 'tags', 'description', 'variants'],
  weights: [10, 4, 2, 3, 4, 1, 2],
} as const;

/** The asset FTS5 table itself: its name, its fts5vocab table, columns and weights. */
export const ASSET_FTS = { fts: 'assets_fts', vocab: 'assets_fts_vocab', ...ASSET_FTS_COLUMNS } as const;
/** The product FTS5 table itself: its name, its fts5vocab table, columns and weights. */
export const PRODUCT_FTS = { fts: 'products_fts', vocab: 'products_fts_vocab', ...PRODUCT_FTS_COLUMNS } as const;

/** The asset FTS5 table of a workspace; `f` filters `search` (kind, category, subtype, orientation, excluded seq). */
export function assetFtsTable(scope: Scope, f: AssetFilters): FtsTable {
  const { maxSeq, ...rest } = f;
  const filters = assetFilterSql(rest);
  // CROSS JOIN pins assets_fts as the outer loop: with a free join order SQLite may walk the
  // workspace's rows by the (tenant_id, workspace_id, seq) index and run the FTS match once per row.
  // Without filters on other columns the scope check per match is a probe of that narrow index
  // (INDEXED BY: the planner would read the row by rowid).
  const join = filters.sql === '' ? 'assets a INDEXED BY assets_scope_seq' : 'assets a';
  return {
    ...ASSET_FTS,
    table: 'assets',
    rows: 'assets a',
    from: `FROM assets_fts CROSS JOIN ${join} ON a.seq = assets_fts.rowid WHERE assets_fts MATCH ? AND a.tenant_id = ? AND a.workspace_id = ?`,
    all: 'FROM assets a WHERE a.tenant_id = ? AND a.workspace_id = ?',
    rowid: 'assets_fts.rowid',
    scopeParams: [scope.tenantId, scope.workspaceId],
    snapshot: maxSeq !== undefined ? { sql: ' AND a.seq <= ?', params: [maxSeq] } : { sql: '', params: [] },
    snapshotMax: maxSeq,
    filters,
    seq: 'a.seq',
    text: "a.name || ' ' || coalesce(a.name_words, '') || ' ' || coalesce(a.alt_text, '') || ' ' || a.tags || ' ' || coalesce(a.ocr_text, '')",
  };
}

/** The product FTS5 table of a store; `f` filters `search` (statuses, collection, type, excluded seq). */
export function productFtsTable(scope: StoreScope, f: ProductFilters): FtsTable {
  const { maxSeq, ...rest } = f;
  // CROSS JOIN pins products_fts as the outer loop (https://www.sqlite.org/optoverview.html#crossjoin);
  // INDEXED BY products_seq_scope (migration 0047) checks store and filters per match in a narrow
  // index instead of reading the whole product row (the planner would pick the rowid)
  return {
    ...PRODUCT_FTS,
    table: 'products',
    rows: 'products p',
    from: 'FROM products_fts CROSS JOIN products p INDEXED BY products_seq_scope ON p.seq = products_fts.rowid WHERE products_fts MATCH ? AND p.store_id = ?',
    all: 'FROM products p WHERE p.store_id = ?',
    rowid: 'products_fts.rowid',
    scopeParams: [scope.storeId],
    snapshot: maxSeq !== undefined ? { sql: ' AND p.seq <= ?', params: [maxSeq] } : { sql: '', params: [] },
    snapshotMax: maxSeq,
    filters: productFilterSql(rest),
    seq: 'p.seq',
    text: "p.title || ' ' || p.handle || ' ' || p.product_type || ' ' || p.tags || ' ' || p.description_text",
  };
}
