import type { Database } from 'better-sqlite3';
import { orientationSql } from '../orientation-sql.ts';
import type { AssetFacetStore, FacetCount } from '../ports/asset-facet-store.ts';

/**
 * The SQLite `AssetFacetStore`: facet counts for the picker's category browser (`svc_asset_panel`
 * `facets`), from one GROUP BY over the scoped assets (index `assets_scope_category`), optionally
 * restricted to a kind and an orientation; or over a given set of assets (a query's matches).
 * better-sqlite3 is synchronous: each method does its work before it returns its promise.
 */
export function createSqliteAssetFacetStore(db: Database): AssetFacetStore {
  return {
    async countsOf(scope, seqs) {
      if (seqs.length === 0) return [];
      return db
        .prepare(
          `SELECT a.category AS category, a.subtype AS subtype, count(*) AS n FROM assets a
          WHERE a.tenant_id = ? AND a.workspace_id = ? AND a.seq IN (SELECT value FROM json_each(?)) GROUP BY a.category, a.subtype`,
        )
        .all(scope.tenantId, scope.workspaceId, JSON.stringify(seqs)) as FacetCount[];
    },
    async counts(scope, opts) {
      const params: unknown[] = [scope.tenantId, scope.workspaceId];
      let sql =
        'SELECT a.category AS category, a.subtype AS subtype, count(*) AS n FROM assets a WHERE a.tenant_id = ? AND a.workspace_id = ?';
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
