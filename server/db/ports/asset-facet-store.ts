import type { Orientation } from '../../../shared/schemas/asset.ts';
import type { Scope } from '../../domain/scope.ts';

/** Count of assets per (category, subtype); `category`/`subtype` null for unclassified assets. */
export interface FacetCount {
  category: string | null;
  subtype: string | null;
  n: number;
}

/**
 * Port: category and subtype counts for the picker's category browser (`svc_asset_panel` `facets`,
 * server/assets/panel-data.ts `facetsFor`). One row per (category, subtype) present, `category` and
 * `subtype` null for unclassified assets, `n` ≥ 1; rows in no particular order. Every method takes the
 * server-derived scope first and never counts an asset of another tenant or workspace.
 * Implementations: SQLite (server/db/sqlite/asset-facets.ts) and
 * PostgreSQL (server/db/postgres/asset-facets.ts); both pass server/db/contract/asset-facet-store-contract.ts.
 */
export interface AssetFacetStore {
  /** Counts over the given assets of the scope (a query's matches); foreign and missing seqs count nothing. */
  countsOf(scope: Scope, seqs: number[]): Promise<FacetCount[]>;
  /**
   * Counts over the scope's assets, optionally only those of a kind and orientation (the orientation rule
   * of server/db/orientation-sql.ts): the picker's category browser before any query.
   */
  counts(scope: Scope, opts: { kind?: string | undefined; orientation?: Orientation | undefined }): Promise<FacetCount[]>;
}
