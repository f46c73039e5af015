import type { LexicalExpr } from '../../domain/search/lexical-query.ts';
import type { LexicalIndex } from '../../domain/search/lexical.ts';
import type { Scope } from '../../domain/scope.ts';
import type { AssetFilters } from '../ports/asset-store.ts';
import { ASSET_COLUMN_WEIGHTS, refreshStaleAssets } from './asset-lexicon.ts';
import { pgAssetFilterSql } from './assets.ts';
import { toTsquery } from './fts-tsquery.ts';
import type { PgPool } from './pool.ts';

/**
 * Counting stops at this many matches, newest first; past it the count is estimated (see `capped`),
 * and the ranked pass ranks the newest this-many matches (plus `k`): a frequent expression costs the
 * same as one with COUNT_CAP matches. The same cap, and the same answer below it, as the SQLite index
 * (server/db/sqlite/lexical-index.ts COUNT_CAP).
 */
export const COUNT_CAP = 2000;
/**
 * ts_rank_cd weights {D, C, B, A} = OCR text, alt text, tags, name: the 1:2:3:4 ratios of the FTS5
 * bm25 weights (name 4, tags 3, alt text 2, OCR text 1).
 */
const RANK_WEIGHTS = '{0.25,0.5,0.75,1}';
/**
 * ts_rank_cd normalization 1: the rank divided by 1 + ln(document length), a mild length
 * normalization in the spirit of BM25's (https://www.postgresql.org/docs/15/textsearch-controls.html#TEXTSEARCH-RANKING).
 */
const RANK_NORMALIZATION = 1;

/** Smallest string greater than every string starting with `prefix` (a term range). */
function rangeEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * The `LexicalIndex` port (domain/search/lexical.ts) on PostgreSQL: the planner's expressions become
 * tsqueries (fts-tsquery.ts) over `assets.lexical_vector` (asset-lexicon.ts, migration 0010: the stems
 * FTS5 would index, columns as weights), and the vocabulary is the workspace's `asset_terms`. The same
 * factory shape as SQLite's `createLexicalIndexes(db).assets(scope, filters)`.
 *
 * Semantics as in server/db/sqlite/lexical-index.ts: `count`, `size`, `vocabulary`, `known` and `sampleText`
 * ignore the request's filters (`count`, `size` and `sampleText` keep the snapshot bound `maxSeq`);
 * `search` applies them; `within` checks given seqs of the scope. Differences, by design:
 * - ranking: ts_rank_cd with the field weights (RANK_WEIGHTS) instead of BM25, ties newest seq first;
 *   compare rankings by relevance metrics, not by identical order;
 * - past COUNT_CAP matches, counts and totals are estimates from the density of matches among the
 *   scope's newest rows (SQLite estimates from FTS5 doclist counts); below it both are exact;
 * - the vocabulary is the workspace's (SQLite's spans the whole database file).
 * The vocabulary table, not `ts_stat`: on 100,000 assets (bench/pg-lexicon.bench.ts, a loaded 2-core
 * machine) ts_stat reads every vector of the workspace per call, p50 677 ms for one prefix, where a
 * term-range probe of `asset_terms` took 3.5 ms; a typo lookup asks for several prefixes.
 *
 * `size` (the planner's N of the IDF) never counts the workspace: it reads the workspace's row of
 * `asset_counts` (migration 0012, kept by triggers in every transaction that inserts or deletes assets)
 * and subtracts the rows past the snapshot bound; so does an unfiltered estimate past COUNT_CAP.
 * Each port serves one request: the first call writes the scope's stale vectors (asset-lexicon.ts),
 * and a count is asked of the database once per expression.
 * @throws Error (from every method taking an expression) for a column the index does not have
 */
export function createPgLexicalIndexes(pool: PgPool): { assets(scope: Scope, f: AssetFilters): LexicalIndex } {
  return {
    assets(scope, f) {
      const { maxSeq, ...rest } = f;
      const scopeSql = `a.tenant_id = $1 AND a.workspace_id = $2${maxSeq !== undefined ? ' AND a.seq <= $3' : ''}`;
      const scopeParams: unknown[] =
        maxSeq !== undefined ? [scope.tenantId, scope.workspaceId, maxSeq] : [scope.tenantId, scope.workspaceId];
      /** `$n` of the next parameter after the scope's */
      const next = scopeParams.length + 1;
      let ready: Promise<unknown> | null = null;
      const fresh = (): Promise<unknown> => (ready ??= refreshStaleAssets(pool, scope));
      const tsquery = (match: LexicalExpr): string | null => toTsquery(match, ASSET_COLUMN_WEIGHTS);
      const counts = new Map<string, number>();
      let size: Promise<number> | null = null;
      /**
       * Assets of the scope under the snapshot bound: the workspace's count row (asset_counts, kept by
       * triggers in the writing transactions, migration 0012) less the rows newer than `maxSeq`, in one
       * statement (one snapshot, so exact whatever other processes write). The second part is an index
       * range past `maxSeq`: empty on a first page, whose bound is the workspace's max(seq), and the rows
       * added since the cursor's snapshot on later pages; never a count of the workspace.
       */
      const scopeSize = (): Promise<number> =>
        (size ??= fresh().then(async () => {
          const r = await pool.query<{ n: number }>(
            `SELECT coalesce((SELECT c.assets FROM asset_counts c WHERE c.workspace_id = $2 AND c.tenant_id = $1), 0)${
              maxSeq !== undefined ? ' - (SELECT count(*) FROM assets a WHERE a.tenant_id = $1 AND a.workspace_id = $2 AND a.seq > $3)' : ''
            } AS n`,
            scopeParams,
          );
          return r.rows[0]!.n;
        }));

      type Filter = { sql: string; params: unknown[] };
      /** Estimates by `lo` and filter: an expression's count and its search reach the same `lo`. */
      const estimates = new Map<string, Promise<number>>();
      /**
       * Matches past COUNT_CAP when the newest COUNT_CAP matches under `filter` (the request's filters or
       * none) reach down to seq `lo`: the share of matches among the scope's rows from `lo` up is assumed
       * to hold for its older rows too, estimate = COUNT_CAP · rows / rows from `lo`. Without filters the
       * rows are the scope's size and the rows from `lo` an index range of the newest rows (no count of
       * the workspace); with filters both are counted under them.
       */
      const estimate = (lo: number, filter: Filter): Promise<number> => {
        const key = `${lo}|${filter.sql}|${JSON.stringify(filter.params)}`;
        let e = estimates.get(key);
        if (!e) {
          e = (async () => {
            const at = scopeParams.length + filter.params.length + 1;
            const rows =
              filter.sql === ''
                ? {
                    total: await scopeSize(),
                    newer: (
                      await pool.query<{ n: number }>(`SELECT count(*) AS n FROM assets a WHERE ${scopeSql} AND a.seq >= $${at}`, [
                        ...scopeParams,
                        lo,
                      ])
                    ).rows[0]!.n,
                  }
                : (
                    await pool.query<{ newer: number; total: number }>(
                      `SELECT count(*) FILTER (WHERE a.seq >= $${at}) AS newer, count(*) AS total FROM assets a WHERE ${scopeSql}${filter.sql}`,
                      [...scopeParams, ...filter.params, lo],
                    )
                  ).rows[0]!;
            return Math.max(COUNT_CAP, Math.round((COUNT_CAP * rows.total) / Math.max(1, rows.newer)));
          })();
          estimates.set(key, e);
        }
        return e;
      };

      /**
       * Matches of `cond` (SQL on `a` after the scope, parameters after the scope's) counted up to
       * COUNT_CAP, newest first, and estimated past it (`estimate`, under `filter`).
       */
      const capped = async (cond: string, params: unknown[], filter: Filter): Promise<{ n: number; estimated: boolean }> => {
        const r = (
          await pool.query<{ n: number; lo: number | null }>(
            `SELECT count(*) AS n, min(seq) AS lo FROM (SELECT a.seq FROM assets a WHERE ${scopeSql} AND ${cond} ORDER BY a.seq DESC LIMIT ${COUNT_CAP}) m`,
            [...scopeParams, ...params],
          )
        ).rows[0]!;
        if (r.n < COUNT_CAP || r.lo === null) return { n: r.n, estimated: false };
        return { n: await estimate(r.lo, filter), estimated: true };
      };

      const count = async (match: LexicalExpr): Promise<number> => {
        const q = tsquery(match);
        await fresh();
        let n = counts.get(q ?? '');
        if (n === undefined) {
          n = q ? (await capped(`a.lexical_vector @@ $${next}::tsquery`, [q], { sql: '', params: [] })).n : 0;
          counts.set(q ?? '', n);
        }
        return n;
      };

      return {
        count,
        size: scopeSize,
        async search(match, k, counted = true) {
          const q = tsquery(match);
          await fresh();
          if (!q || k <= 0) return { seqs: [], total: 0 };
          const w = pgAssetFilterSql(rest, next + 1);
          const where = `${scopeSql} AND a.lexical_vector @@ $${next}::tsquery${w.sql}`;
          const params = [...scopeParams, q, ...w.params];
          const lim = Math.max(COUNT_CAP, k);
          const rows = (
            await pool.query<{ seq: number; n: number; lo: number }>(
              `SELECT seq, count(*) OVER () AS n, min(seq) OVER () AS lo FROM (
                 SELECT a.seq, ts_rank_cd('${RANK_WEIGHTS}', a.lexical_vector, $${next}::tsquery, ${RANK_NORMALIZATION}) AS r
                 FROM (SELECT a.seq, a.lexical_vector FROM assets a WHERE ${where} ORDER BY a.seq DESC LIMIT ${lim}) a
               ) s ORDER BY r DESC, seq DESC LIMIT $${params.length + 1}`,
              [...params, k],
            )
          ).rows;
          const seqs = rows.map((r) => r.seq);
          const read = rows[0]?.n ?? 0;
          if (seqs.length < k) return { seqs, total: seqs.length };
          if (read < lim || !counted) return { seqs, total: read };
          // the filters again for the estimate's row counts, numbered right after the scope's parameters
          const filter = pgAssetFilterSql(rest, next);
          // at lim = COUNT_CAP the ranked pass read what `capped` would count: the newest COUNT_CAP matches, down to `lo`
          if (lim === COUNT_CAP) return { seqs, total: await estimate(rows[0]!.lo, filter), estimated: true };
          const c = await capped(`a.lexical_vector @@ $${next}::tsquery${w.sql}`, [q, ...w.params], filter);
          return { seqs, total: Math.max(c.n, read), estimated: c.estimated };
        },
        // one query for the union (a round trip per group's list would cost more than it saves)
        countAny: (_matches, union) => count(union),
        async within(match, seqs) {
          const q = tsquery(match);
          await fresh();
          if (!q || seqs.length === 0) return new Set();
          const r = await pool.query<{ seq: number }>(
            `SELECT a.seq FROM assets a WHERE a.tenant_id = $1 AND a.workspace_id = $2 AND a.seq = ANY($3::bigint[]) AND a.lexical_vector @@ $4::tsquery`,
            [scope.tenantId, scope.workspaceId, seqs, q],
          );
          return new Set(r.rows.map((x) => x.seq));
        },
        async vocabulary(prefix) {
          if (!prefix) return [];
          await fresh();
          return (
            await pool.query<{ term: string; docs: number }>(
              `SELECT term, docs FROM asset_terms WHERE workspace_id = $2 AND tenant_id = $1 AND term >= $3 AND term < $4 AND docs > 0 ORDER BY term`,
              [scope.tenantId, scope.workspaceId, prefix, rangeEnd(prefix)],
            )
          ).rows;
        },
        async known(stems) {
          if (stems.length === 0) return new Set();
          await fresh();
          const r = await pool.query<{ term: string }>(
            'SELECT term FROM asset_terms WHERE workspace_id = $2 AND tenant_id = $1 AND term = ANY($3::text[]) AND docs > 0',
            [scope.tenantId, scope.workspaceId, [...new Set(stems)]],
          );
          return new Set(r.rows.map((x) => x.term));
        },
        async sampleText(match) {
          const q = tsquery(match);
          await fresh();
          if (!q) return null;
          // the text the SQLite index returns (server/db/sqlite/lexical-index.ts `text`): user tags as their JSON text, no automatic tags
          const r = await pool.query<{ t: string }>(
            `SELECT a.name || ' ' || coalesce(a.name_words, '') || ' ' || coalesce(a.alt_text, '') || ' ' || a.tags || ' ' || coalesce(a.ocr_text, '') AS t
             FROM assets a WHERE ${scopeSql} AND a.lexical_vector @@ $${next}::tsquery ORDER BY a.seq LIMIT 5`,
            [...scopeParams, q],
          );
          return r.rows.length ? r.rows.map((x) => x.t).join(' ') : null;
        },
      };
    },
  };
}
