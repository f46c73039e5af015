import type { Database } from 'better-sqlite3';
import type { Orientation } from '../../../shared/schemas/asset.ts';
import type { Scope } from '../../domain/scope.ts';
import { orientationSql } from '../orientation-sql.ts';
import type { FacetCount } from '../ports/asset-facet-store.ts';

/**
 * Facet counts for the picker's category browser (`svc_asset_panel` `facets`). Counts come from one
 * GROUP BY over the scoped assets (index `assets_scope_category`), optionally restricted to a kind and an
 * orientation; or over a given set of assets (a query's matches).
 */
export function createAssetFacetQueries(db: Database) {
  return {
    /** Counts over given assets of the scope (a query's matches). */
    countsOf(scope: Scope, seqs: number[]): FacetCount[] {
      if (seqs.length === 0) return [];
      return db
        .prepare(
          `SELECT a.category AS category, a.subtype AS subtype, count(*) AS n FROM assets a
          WHERE a.tenant_id = ? AND a.workspace_id = ? AND a.seq IN (SELECT value FROM json_each(?)) GROUP BY a.category, a.subtype`,
        )
        .all(scope.tenantId, scope.workspaceId, JSON.stringify(seqs)) as FacetCount[];
    },
    /** Counts over the scope's assets of a kind and orientation (each optional). */
    counts(scope: Scope, opts: { kind?: string | undefined; orientation?: Orientation | undefined }): FacetCount[] {
      const params: unknown[] = [];
      let sql = 'SELECT a.category AS category, a.subtype AS subtype, count(*) AS n FROM assets a WHERE';
      sql += ' a.tenant_id = ? AND a.workspace_id = ?';
      params.push(scope.tenantId, scope.workspaceId);
      if (opts.kind) {
        sql += ' AND a.kind = ?';
        params.push(opts.kind);
      }
      if (opts.orientation) sql += ` AND ${orientationSql(opts.orientation)}`;
      sql += ' GROUP BY a.category, a.subtype';
      return db.prepare(sql).all(...params) as FacetCount[];
    },
  };
}
export type AssetFacetQueries = ReturnType<typeof createAssetFacetQueries>;
