import { orientationSql } from '../orientation-sql.ts';
import type { AssetFacetStore, FacetCount } from '../ports/asset-facet-store.ts';
import type { PgPool } from './pool.ts';

/**
 * The PostgreSQL `AssetFacetStore`: one GROUP BY over the scope's assets (index `assets_scope_category`
 * of postgres/migrations/0003), or over a given set of assets.
 */
export function createPgAssetFacetStore(pool: PgPool): AssetFacetStore {
  return {
    async countsOf(scope, seqs) {
      if (seqs.length === 0) return [];
      return (
        await pool.query<FacetCount>(
          `SELECT a.category, a.subtype, count(*) AS n FROM assets a
           WHERE a.tenant_id = $1 AND a.workspace_id = $2 AND a.seq = ANY($3::bigint[]) GROUP BY a.category, a.subtype`,
          [scope.tenantId, scope.workspaceId, seqs],
        )
      ).rows;
    },
    async counts(scope, opts) {
      const params: unknown[] = [scope.tenantId, scope.workspaceId];
      let where = 'a.tenant_id = $1 AND a.workspace_id = $2';
      if (opts.kind) {
        params.push(opts.kind);
        where += ` AND a.kind = $${params.length}`;
      }
      if (opts.orientation) where += ` AND ${orientationSql(opts.orientation)}`;
      return (
        await pool.query<FacetCount>(
          `SELECT a.category, a.subtype, count(*) AS n FROM assets a WHERE ${where} GROUP BY a.category, a.subtype`,
          params,
        )
      ).rows;
    },
  };
}
