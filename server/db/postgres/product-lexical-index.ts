import type { LexicalExpr } from '../../domain/search/lexical-query.ts';
import type { LexicalIndex } from '../../domain/search/lexical.ts';
import type { ProductFilters, StoreScope } from '../ports/product-store.ts';
import { toTsquery } from './fts-tsquery.ts';
import type { PgPool } from './pool.ts';
import { PRODUCT_COLUMN_WEIGHTS, PRODUCT_RANK_WEIGHTS } from './product-lexicon.ts';
import { pgProductFilterSql } from './products.ts';

/**
 * The ranked pass reads at most this many matches, newest first, and ranks them here: a frequent
 * expression is ranked within its newest matches, as the SQLite index does (server/db/sqlite/lexical-index.ts
 * COUNT_CAP); the total is still an exact count.
 */
export const PRODUCT_RANK_WINDOW = 2000;
/**
 * ts_rank_cd normalization 1: the rank divided by 1 + ln(document length), a mild length normalization
 * in the spirit of BM25's (https://www.postgresql.org/docs/15/textsearch-controls.html#TEXTSEARCH-RANKING).
 */
const RANK_NORMALIZATION = 1;

/** Smallest string greater than every string starting with `prefix` (a term range). */
function rangeEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * The `LexicalIndex` port (domain/search/lexical.ts) of a store's products on PostgreSQL: the planner's
 * MATCH expressions become tsqueries (fts-tsquery.ts) over `products.lexical_vector` (product-lexicon.ts,
 * migration 0007: the stems FTS5 would index, columns as weights), and the vocabulary is the store's
 * `product_terms`. The same factory shape as SQLite's `createLexicalIndexes(db).products(scope, filters)`.
 *
 * Semantics as in server/db/sqlite/lexical-index.ts: `count`, `size`, `vocabulary`, `known` and `sampleText`
 * ignore the request's filters (`count`, `size` and `sampleText` keep the snapshot bound `maxSeq`);
 * `search` applies them (statuses, collection, product type, excluded seq); `within` checks given seqs
 * of the store. Differences, by design (as for assets on PostgreSQL):
 * - ranking: ts_rank_cd with the field weights (PRODUCT_RANK_WEIGHTS) instead of BM25, ties newest seq
 *   first; compare rankings by relevance metrics, not by identical order;
 * - totals are exact counts (never `estimated`); the ranking covers the newest PRODUCT_RANK_WINDOW matches;
 * - the vocabulary is the store's (SQLite's spans the whole database file).
 * `size` (the planner's N of the IDF) never counts the store: it reads the store's row of
 * `product_counts` (migration 0012, kept by triggers in every transaction that inserts or deletes
 * products) less the products past the snapshot bound (an index range, empty on a first
 * page), in one statement, so it is exact whatever other processes write.
 * Each port serves one request: a count is asked of the database once per expression.
 * @throws Error (from every method taking an expression) for a column the index does not have
 */
export function createPgProductLexicalIndexes(pool: PgPool): { products(scope: StoreScope, f: ProductFilters): LexicalIndex } {
  return {
    products(scope, f) {
      const { maxSeq, ...rest } = f;
      const scopeSql = `p.store_id = $1${maxSeq !== undefined ? ' AND p.seq <= $2' : ''}`;
      const scopeParams: unknown[] = maxSeq !== undefined ? [scope.storeId, maxSeq] : [scope.storeId];
      /** `$n` of the next parameter after the scope's */
      const next = scopeParams.length + 1;
      const tsquery = (match: LexicalExpr): string | null => toTsquery(match, PRODUCT_COLUMN_WEIGHTS);
      const counts = new Map<string, number>();
      let size: Promise<number> | null = null;

      const count = async (match: LexicalExpr): Promise<number> => {
        const q = tsquery(match);
        let n = counts.get(q ?? '');
        if (n === undefined) {
          n = q
            ? (
                await pool.query<{ n: number }>(
                  `SELECT count(*) AS n FROM products p WHERE ${scopeSql} AND p.lexical_vector @@ $${next}::tsquery`,
                  [...scopeParams, q],
                )
              ).rows[0]!.n
            : 0;
          counts.set(q ?? '', n);
        }
        return n;
      };

      return {
        count,
        size: () =>
          (size ??= pool
            .query<{ n: number }>(
              `SELECT coalesce((SELECT c.products FROM product_counts c WHERE c.store_id = $1), 0)${
                maxSeq !== undefined ? ' - (SELECT count(*) FROM products p WHERE p.store_id = $1 AND p.seq > $2)' : ''
              } AS n`,
              scopeParams,
            )
            .then((r) => r.rows[0]!.n)),
        async search(match, k, counted = true) {
          const q = tsquery(match);
          if (!q || k <= 0) return { seqs: [], total: 0 };
          const w = pgProductFilterSql(rest, next + 1);
          const where = `${scopeSql} AND p.lexical_vector @@ $${next}::tsquery${w.sql}`;
          const params = [...scopeParams, q, ...w.params];
          const lim = Math.max(PRODUCT_RANK_WINDOW, k);
          const rows = (
            await pool.query<{ seq: number; n: number }>(
              `SELECT seq, count(*) OVER () AS n FROM (
                 SELECT p.seq, ts_rank_cd('${PRODUCT_RANK_WEIGHTS}', p.lexical_vector, $${next}::tsquery, ${RANK_NORMALIZATION}) AS r
                 FROM (SELECT p.seq, p.lexical_vector FROM products p WHERE ${where} ORDER BY p.seq DESC LIMIT ${lim}) p
               ) s ORDER BY r DESC, seq DESC LIMIT $${params.length + 1}`,
              [...params, k],
            )
          ).rows;
          const seqs = rows.map((r) => r.seq);
          const read = rows[0]?.n ?? 0;
          if (seqs.length < k) return { seqs, total: seqs.length };
          if (read < lim || !counted) return { seqs, total: read };
          const total = (await pool.query<{ n: number }>(`SELECT count(*) AS n FROM products p WHERE ${where}`, params)).rows[0]!.n;
          return { seqs, total };
        },
        // one query for the union (a round trip per group's list would cost more than it saves)
        countAny: (_matches, union) => count(union),
        async within(match, seqs) {
          const q = tsquery(match);
          if (!q || seqs.length === 0) return new Set();
          const r = await pool.query<{ seq: number }>(
            'SELECT p.seq FROM products p WHERE p.store_id = $1 AND p.seq = ANY($2::bigint[]) AND p.lexical_vector @@ $3::tsquery',
            [scope.storeId, seqs, q],
          );
          return new Set(r.rows.map((x) => x.seq));
        },
        async vocabulary(prefix) {
          if (!prefix) return [];
          return (
            await pool.query<{ term: string; docs: number }>(
              'SELECT term, docs FROM product_terms WHERE store_id = $1 AND term >= $2 AND term < $3 AND docs > 0 ORDER BY term',
              [scope.storeId, prefix, rangeEnd(prefix)],
            )
          ).rows;
        },
        async known(stems) {
          if (stems.length === 0) return new Set();
          const r = await pool.query<{ term: string }>(
            'SELECT term FROM product_terms WHERE store_id = $1 AND term = ANY($2::text[]) AND docs > 0',
            [scope.storeId, [...new Set(stems)]],
          );
          return new Set(r.rows.map((x) => x.term));
        },
        async sampleText(match) {
          const q = tsquery(match);
          if (!q) return null;
          // the text the SQLite index returns (server/db/sqlite/lexical-index.ts `text`): tags as their JSON text
          const r = await pool.query<{ t: string }>(
            `SELECT p.title || ' ' || p.handle || ' ' || p.product_type || ' ' || p.tags || ' ' || p.description_text AS t
             FROM products p WHERE ${scopeSql} AND p.lexical_vector @@ $${next}::tsquery ORDER BY p.seq LIMIT 5`,
            [...scopeParams, q],
          );
          return r.rows.length ? r.rows.map((x) => x.t).join(' ') : null;
        },
      };
    },
  };
}
