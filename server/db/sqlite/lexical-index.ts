import type { Database, Statement } from 'better-sqlite3';
import type { LexicalIndex } from '../../domain/search/lexical.ts';
import type { Scope } from '../../domain/scope.ts';
import type { AssetFilters } from '../ports/asset-store.ts';
import type { ProductFilters, StoreScope } from '../ports/product-store.ts';
import { toFts5Match } from './fts5-match.ts';
import { assetFtsTable, productFtsTable, type FtsTable } from './lexical-tables.ts';

/**
 * Counting through the scope join stops at this many matches of an expression; past it the count is
 * estimated from FTS5 doclist counts (exact when the scope holds every row of the table), and the
 * BM25 ranking covers the newest this-many matches (FTS5 reads them in rowid order), so a frequent
 * word costs the same as one with `COUNT_CAP` matches.
 */
export const COUNT_CAP = 2000;

/**
 * An expression counted with at most this many matches in the scope is counted by listing them, and the
 * list answers the request's later `within` questions about it: the planner counts each group of a query
 * word and then asks which candidates hold it, and the second FTS5 pass over the same (often long) OR
 * expression was as costly as the first. Past it, `count(*)` as before (a frequent word's list would cost
 * more than it saves).
 */
export const MEMBERS_CAP = 256;

/** Stems remembered per vocabulary table between writes (the `known` memo) before it starts over. */
const VOCAB_MEMO_MAX = 50_000;

/** Smallest string greater than every string starting with `prefix` (for an FTS5 vocabulary range). */
function rangeEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * The `LexicalIndex` port (domain/search/lexical.ts) over the asset and product FTS5 tables and their
 * fts5vocab vocabularies (migration 0020): FTS5 answers every question, each expression compiled to
 * MATCH text (fts5-match.ts). Statements are prepared once
 * per SQL shape. Scope sizes are cached until the database changes (`PRAGMA data_version` for other
 * connections, `total_changes()` for this one).
 */
export function createLexicalIndexes(db: Database) {
  const stmts = new Map<string, Statement>();
  const prep = (sql: string): Statement => {
    let s = stmts.get(sql);
    if (!s) {
      s = db.prepare(sql);
      stmts.set(sql, s);
    }
    return s;
  };
  // prepared once: `db.pragma()` compiles its statement on every call, and this runs several times per query
  const changeKey = (): string =>
    `${prep('PRAGMA data_version').pluck().get() as number}:${prep('SELECT total_changes()').pluck().get() as number}`;

  /** Scope sizes by scope, snapshot and database change counter (a count over the scope's index otherwise). */
  const sizes = new Map<string, { key: string; n: number }>();
  /**
   * Per vocabulary table, which stems are in it and which are not, as of one database state (`key`): the
   * planner asks this for every WordNet neighbour of every query word, and each fts5vocab lookup walks the
   * term's doclist in every segment, so repeated queries between writes ask the vocabulary nothing.
   * Emptied when the state moves; bounded by VOCAB_MEMO_MAX stems.
   */
  const vocabMemo = new Map<string, { key: string; held: Set<string>; absent: Set<string> }>();

  /** @param head the change-log head the caller read for this request (read again where needed when absent) */
  const port = (t: FtsTable, head?: number): LexicalIndex => {
    const bm25 = `bm25(${t.fts}, ${t.weights.map((w) => w.toFixed(1)).join(', ')})`;
    /**
     * The database state as of this request's first size or count: one request reads one state. The
     * change-log head when the caller gave it (every insert and delete of an asset or product, all that
     * the cached counts depend on, moves it); else the database change counter (two statements once,
     * not on every count).
     */
    let requestKey: string | undefined;
    const changed = (): string => (requestKey ??= head !== undefined ? `h${head}` : changeKey());
    /** Documents of the scope under the snapshot bound (cached until the database changes). */
    const scopeSize = (): number => {
      const id = `${t.all}|${JSON.stringify(t.scopeParams)}|${JSON.stringify(t.snapshot.params)}`;
      const key = changed();
      const hit = sizes.get(id);
      if (hit && hit.key === key) return hit.n;
      const n = (prep(`SELECT count(*) AS n ${t.all}${t.snapshot.sql}`).get(...t.scopeParams, ...t.snapshot.params) as { n: number }).n;
      if (sizes.size > 256) sizes.clear();
      sizes.set(id, { key, n });
      return n;
    };
    /** Matches of `match` in the whole FTS5 table (every scope) with rowid ≤ `hi`: the doclists alone, no row reads. */
    const ftsCounts = new Map<string, number>();
    const ftsCount = (match: string, hi: number): number => {
      const key = `${hi}|${match}`;
      let n = ftsCounts.get(key);
      if (n === undefined) {
        n = (prep(`SELECT count(*) AS n FROM ${t.fts} WHERE ${t.fts} MATCH ? AND rowid <= ?`).get(match, hi) as { n: number }).n;
        ftsCounts.set(key, n);
      }
      return n;
    };
    /**
     * Matches of `match` in the scope, counted up to COUNT_CAP. Past it: the first
     * COUNT_CAP matches in rowid order reach up to seq `hi`, where the expression has `upTo` matches
     * in the whole table; the scope's share COUNT_CAP / upTo is assumed to hold for all
     * of the table's matches under the snapshot bound, so the estimate is COUNT_CAP · all / upTo. Both
     * counts read FTS5 doclists only (a frequent word costs the same as one with COUNT_CAP matches).
     */
    const capped = (match: string): { n: number; estimated: boolean } => {
      const params = [match, ...t.scopeParams, ...t.snapshot.params];
      const r = prep(
        `SELECT count(*) AS n, max(seq) AS hi FROM (SELECT ${t.seq} AS seq ${t.from}${t.snapshot.sql} LIMIT ${COUNT_CAP})`,
      ).get(...params) as { n: number; hi: number | null };
      if (r.n < COUNT_CAP || r.hi === null) return { n: r.n, estimated: false };
      const upTo = ftsCount(match, r.hi);
      const all = ftsCount(match, t.snapshotMax ?? Number.MAX_SAFE_INTEGER);
      return { n: Math.max(COUNT_CAP, Math.round((COUNT_CAP * all) / Math.max(1, upTo))), estimated: true };
    };
    /**
     * Whether the scope holds every row of the table (one workspace or one store: the usual
     * deployment). Then a scope count is the FTS5 count alone, exact and without row reads.
     * Both counts are cached until the database changes.
     */
    const coversTable = (): boolean => {
      const key = changed();
      const cached = (id: string, sql: string, params: unknown[]): number => {
        const hit = sizes.get(id);
        if (hit && hit.key === key) return hit.n;
        const n = (prep(sql).get(...params) as { n: number }).n;
        if (sizes.size > 256) sizes.clear();
        sizes.set(id, { key, n });
        return n;
      };
      const table = cached(t.table, `SELECT count(*) AS n FROM ${t.table}`, []);
      return table === cached(`${t.all}|${JSON.stringify(t.scopeParams)}`, `SELECT count(*) AS n ${t.all}`, t.scopeParams);
    };
    /** The scope's matches of the expressions counted with at most MEMBERS_CAP of them (see there), by expression. */
    const members = new Map<string, Set<number>>();
    /** The scope's matches of `match` when there are at most MEMBERS_CAP (then kept in `members`), else null. */
    const listed = (match: string): number[] | null => {
      const seqs = (
        coversTable()
          ? prep(`SELECT rowid FROM ${t.fts} WHERE ${t.fts} MATCH ? AND rowid <= ? LIMIT ${MEMBERS_CAP + 1}`)
              .pluck()
              .all(match, t.snapshotMax ?? Number.MAX_SAFE_INTEGER)
          : prep(`SELECT ${t.seq} ${t.from}${t.snapshot.sql} LIMIT ${MEMBERS_CAP + 1}`)
              .pluck()
              .all(match, ...t.scopeParams, ...t.snapshot.params)
      ) as number[];
      if (seqs.length > MEMBERS_CAP) return null;
      members.set(match, new Set(seqs));
      return seqs;
    };
    // One port serves one request: a match expression is counted once (the planner asks again for totals).
    const counts = new Map<string, { n: number; estimated: boolean }>();
    const count = (match: string): { n: number; estimated: boolean } => {
      let c = counts.get(match);
      if (c === undefined) {
        const few = listed(match);
        if (few) c = { n: few.length, estimated: false };
        else c = coversTable() ? { n: ftsCount(match, t.snapshotMax ?? Number.MAX_SAFE_INTEGER), estimated: false } : capped(match);
        counts.set(match, c);
      }
      return c;
    };
    return {
      async count(expr) {
        const match = toFts5Match(expr);
        return match === null ? 0 : count(match).n;
      },
      async size() {
        return scopeSize();
      },
      async search(expr, k, counted = true) {
        const match = toFts5Match(expr);
        if (match === null) return { seqs: [], total: 0, estimated: false };
        // One pass: the newest max(COUNT_CAP, k) matches under the filters with their BM25 score, in
        // FTS5 rowid order; fewer rows than that is the exact count, and the ranking is a sort of
        // those rows (here, or in SQLite when nothing is filtered). A frequent expression is ranked
        // within its newest matches and its total estimated: BM25 never runs over every match. A list
        // that only adds candidates (uncounted) is ranked within its newest k matches: BM25 per match is
        // most of a search's cost, and those lists rank below the counted one's complete matches.
        const lim = counted ? Math.max(COUNT_CAP, k) : k;
        if (t.filters.sql === '' && coversTable()) {
          // The scope is the whole table and nothing is filtered out: the window is the newest `lim`
          // matches under the snapshot bound, so its size is the doclist count (capped), sorted by the
          // same key as below, by SQLite handing back the first k seqs alone.
          const hi = t.snapshotMax ?? Number.MAX_SAFE_INTEGER;
          const seqs = prep(
            `SELECT rowid FROM (SELECT rowid, ${bm25} AS r FROM ${t.fts} WHERE ${t.fts} MATCH ? AND rowid <= ? ORDER BY rowid DESC LIMIT ?) ORDER BY r, rowid DESC LIMIT ?`,
          )
            .pluck()
            .all(match, hi, lim, k) as number[];
          // uncounted lists need no total (the port's contract): no count query for them
          if (seqs.length < k || !counted) return { seqs, total: seqs.length, estimated: false };
          // the scope count of the whole table is exact (the window holds the newest min(count, lim))
          return { seqs, total: count(match).n, estimated: false };
        }
        // through the scope join, which checks the filters on each match
        const rows = prep(
          `SELECT ${t.seq} AS seq, ${bm25} AS r ${t.from}${t.snapshot.sql}${t.filters.sql} ORDER BY ${t.rowid} DESC LIMIT ?`,
        )
          .raw()
          .all(match, ...t.scopeParams, ...t.snapshot.params, ...t.filters.params, lim) as [number, number][];
        let c: { n: number; estimated: boolean };
        if (rows.length < lim || !counted) c = { n: rows.length, estimated: false };
        // without request filters the total is the scope's count of the same match
        else if (t.filters.sql === '') {
          const u = count(match);
          c = { n: Math.max(u.n, rows.length), estimated: u.estimated };
        } else {
          // the filtered share of the table's matches from the oldest row read up to the snapshot bound
          const lo = rows[rows.length - 1]![0];
          const hi = t.snapshotMax ?? Number.MAX_SAFE_INTEGER;
          const all = ftsCount(match, hi);
          c = { n: Math.max(lim, Math.round((lim * all) / Math.max(1, all - ftsCount(match, lo - 1)))), estimated: true };
        }
        rows.sort((a, b) => a[1] - b[1] || b[0] - a[0]);
        const seqs = (rows.length > k ? rows.slice(0, k) : rows).map((r) => r[0]);
        return { seqs, total: seqs.length < k ? seqs.length : c.n, estimated: c.estimated && seqs.length >= k };
      },
      async countAny(exprs, unionExpr) {
        const union = toFts5Match(unionExpr);
        if (union === null) return 0;
        const all = new Set<number>();
        for (const e of exprs) {
          const m = toFts5Match(e);
          if (m === null) continue;
          count(m); // lists the expression's documents when it has few (`listed`)
          const kept = members.get(m);
          if (!kept) return count(union).n;
          for (const q of kept) all.add(q);
        }
        return all.size;
      },
      async within(expr, seqs) {
        const match = toFts5Match(expr);
        if (seqs.length === 0 || match === null) return new Set();
        const known = members.get(match);
        if (known) return new Set(seqs.filter((q) => known.has(q)));
        // One pass over the expression's doclists within the candidates' rowid range, intersected here:
        // `rowid IN (…)` would make FTS5 evaluate the expression once per candidate (a seek per rowid).
        const want = new Set(seqs);
        let lo = Infinity,
          hi = -Infinity;
        for (const q of seqs) {
          if (q < lo) lo = q;
          if (q > hi) hi = q;
        }
        const out = new Set<number>();
        // `all` (one native call) rather than `iterate` (one per row): thousands of rowids on frequent words
        const rowids = prep(`SELECT rowid FROM ${t.fts} WHERE ${t.fts} MATCH ? AND rowid BETWEEN ? AND ?`)
          .pluck()
          .all(match, lo, hi) as number[];
        for (const seq of rowids) if (want.has(seq)) out.add(seq);
        return out;
      },
      async vocabulary(prefix) {
        if (!prefix) return [];
        return prep(`SELECT term, doc AS docs FROM ${t.vocab} WHERE term >= ? AND term < ?`).all(prefix, rangeEnd(prefix)) as {
          term: string;
          docs: number;
        }[];
      },
      async known(stems) {
        if (stems.length === 0) return new Set();
        const key = changed();
        let memo = vocabMemo.get(t.vocab);
        if (!memo || memo.key !== key || memo.held.size + memo.absent.size > VOCAB_MEMO_MAX)
          vocabMemo.set(t.vocab, (memo = { key, held: new Set(), absent: new Set() }));
        const ask = stems.filter((x) => !memo.held.has(x) && !memo.absent.has(x));
        if (ask.length) {
          const held = new Set(
            prep(`SELECT term FROM ${t.vocab} WHERE term IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(ask)) as string[],
          );
          for (const x of ask) (held.has(x) ? memo.held : memo.absent).add(x);
        }
        return new Set(stems.filter((x) => memo.held.has(x)));
      },
      async sampleText(expr) {
        const match = toFts5Match(expr);
        if (match === null) return null;
        const rows = prep(`SELECT ${t.text} AS t ${t.from}${t.snapshot.sql} LIMIT 5`).all(
          match,
          ...t.scopeParams,
          ...t.snapshot.params,
        ) as { t: string }[];
        return rows.length ? rows.map((r) => r.t).join(' ') : null;
      },
    };
  };

  return {
    /** The asset index of a workspace; `f` filters `search` (kind, category, subtype, orientation, excluded seq). */
    assets: (scope: Scope, f: AssetFilters, head?: number): LexicalIndex => port(assetFtsTable(scope, f), head),
    /** The product index of a store; `f` filters `search` (statuses, collection, type, excluded seq). */
    products: (scope: StoreScope, f: ProductFilters, head?: number): LexicalIndex => port(productFtsTable(scope, f), head),
  };
}
export type LexicalIndexes = ReturnType<typeof createLexicalIndexes>;
