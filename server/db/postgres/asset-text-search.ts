import type { AssetTextSearch } from '../ports/asset-text-search.ts';
import { pgAssetFilterSql } from './assets.ts';
import type { PgPool } from './pool.ts';

/** ts_rank_cd weights {D, C, B, A}: OCR text, alt text, tags, name in the 1:2:3:4 ratio of the FTS5 bm25 weights. */
const RANK_WEIGHTS = '{0.25,0.5,0.75,1}';

/**
 * The PostgreSQL `AssetTextSearch` over `assets.search_vector` (postgres/migrations/0004: weighted
 * tsvector kept by a trigger, GIN index, text configuration atelier_english). The words become one
 * `plainto_tsquery`: every word's lexeme AND'ed, no operator syntax whatever the words hold (the same
 * rule as the SQLite side, where user text never becomes FTS5 operators; websearch_to_tsquery would
 * read "or" and "-word" as operators). Ranked by `ts_rank_cd` with the field weights, ties newest seq
 * first; the total is an exact count. Not wired into the server yet (see pool.ts).
 */
export function createPgAssetTextSearch(pool: PgPool): AssetTextSearch {
  return {
    async search(scope, words, f, k) {
      const content = words.filter((w) => w.trim() !== '');
      if (content.length === 0 || k <= 0) return { seqs: [], total: 0 };
      const w = pgAssetFilterSql(f, 4);
      // a query of stop words only is an empty tsquery, which matches nothing (numnode = 0 skips the NOTICE)
      const from = `FROM assets a, plainto_tsquery('atelier_english', $3) q
        WHERE numnode(q) > 0 AND a.tenant_id = $1 AND a.workspace_id = $2 AND a.search_vector @@ q${w.sql}`;
      const params = [scope.tenantId, scope.workspaceId, content.join(' '), ...w.params];
      const rows = await pool.query<{ seq: number }>(
        `SELECT a.seq ${from} ORDER BY ts_rank_cd('${RANK_WEIGHTS}', a.search_vector, q) DESC, a.seq DESC LIMIT $${params.length + 1}`,
        [...params, k],
      );
      const seqs = rows.rows.map((r) => r.seq);
      const total = seqs.length < k ? seqs.length : (await pool.query<{ n: number }>(`SELECT count(*) AS n ${from}`, params)).rows[0]!.n;
      return { seqs, total };
    },
  };
}
