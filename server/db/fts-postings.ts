import type { Database, Statement } from 'better-sqlite3';
import { FtsSubsetError, parseFtsSubset, type FtsNode } from '../domain/fts-expression.ts';
import { createFtsTokenizer } from './fts-tokenizer.ts';
import type { SearchChange, SearchChanges } from './search-changes.ts';

/** Limits of the in-memory copy of one FTS5 table. */
export interface FtsPostingsLimits {
  /** changed rows kept beside the copy before they are folded into it; more changed at once and the table is read again */
  overlay: number;
  /** token instances held at most; a larger table is not held (FTS5 answers every query) */
  instances: number;
}
/** 1,024 changed rows; 8,000,000 token instances (about 10 bytes per term and row held: ~80 MB at most). */
export const FTS_POSTINGS_LIMITS: FtsPostingsLimits = { overlay: 1024, instances: 8_000_000 };
/** No table held: FTS5 answers every query. */
export const FTS_POSTINGS_OFF: FtsPostingsLimits = { overlay: 0, instances: 0 };

/** The FTS5 table held in memory: its name, `search_changes` kind, columns and bm25 column weights. */
export interface FtsPostingsTable {
  fts: string;
  kind: SearchChange['kind'];
  columns: readonly string[];
  weights: readonly number[];
}

/** The matches of one expression in the whole table, as FTS5 would return them. */
export interface FtsMatches {
  /** matches with rowid ≤ `hi` (FTS5 `count(*) … MATCH ? AND rowid <= ?`) */
  count(hi: number): number;
  /**
   * The newest `lim` matches with rowid ≤ `hi` that are not in `skip`, newest first, each with the
   * value FTS5's `bm25(fts, …weights)` gives it (lower is better). @returns [rowid, bm25][]
   */
  newest(hi: number, lim: number, skip?: ReadonlySet<number>): [number, number][];
  /**
   * The first `k` of the newest `lim` matches with rowid ≤ `hi`, ordered by BM25 (best first), ties
   * newest first: FTS5's `SELECT rowid FROM (… ORDER BY rowid DESC LIMIT lim) ORDER BY bm25, rowid DESC LIMIT k`.
   */
  top(hi: number, lim: number, k: number): number[];
  /** whether `rowid` matches */
  has(rowid: number): boolean;
}
/** The table as it stood when the view was taken: one request's answers come from one state. */
export interface FtsPostingsView {
  /** the matches of an expression, or null when FTS5 must answer it (see createFtsPostings) */
  matches(match: string): FtsMatches | null;
}

/** Bytes of phrase lists and compiled matches kept per state; past it both caches start empty. */
const CACHE_BYTES = 32 * 2 ** 20;

/** BM25 constants of FTS5's `bm25()` (ext/fts5/fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;

/**
 * The postings of every term as read, in one block (compressed sparse rows): term `id`'s postings are
 * `start[id]` … `start[id + 1] − 1`, each a rowid (ascending within the term) and its instance count in
 * each column (`tf[posting · columns + column]`). About 4 + 2 · columns bytes per term and row.
 */
interface Block {
  ids: Map<string, number>;
  start: Int32Array;
  docs: Int32Array;
  tf: Uint16Array;
}
/** A row changed since the read: its length in tokens and its per-column count of each term (null: row gone). */
type OverlayRow = { len: number; terms: Map<string, Uint32Array> } | null;
interface State {
  /** `search_changes` id the state is current with */
  mark: number;
  block: Block;
  /** tokens per rowid at the read (0 for no row) and whether the row existed */
  len: Int32Array;
  exists: Uint8Array;
  rows: number;
  tokens: number;
  overlay: Map<number, OverlayRow>;
  /** per phrase (term and column), its rows and weighted frequency, for this state */
  lists: Map<string, PhraseList>;
  /** compiled expressions for this state (null: outside what the memory copy evaluates) */
  compiled: Map<string, FtsMatches | null>;
  /** bytes of the rows held by `lists` and `compiled` (both are emptied past CACHE_BYTES) */
  cached: number;
}
/** An expression over phrase numbers (their order in the expression). */
type Compiled = { k: 'phrase'; i: number } | { k: 'and' | 'or'; items: Compiled[] };
/** The rows holding a term (in one column or any), ascending, with the bm25 weighted frequency f(q, D) of each. */
interface PhraseList {
  docs: Int32Array;
  f: Float64Array;
}

/** Index of the first element of sorted `a` greater than `x`. */
function upperBound(a: Int32Array, x: number): number {
  let lo = 0,
    hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
/** Index of the first element of sorted `a` not less than `x`. */
function lowerBound(a: Int32Array, x: number): number {
  let lo = 0,
    hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
/** Index of `x` in sorted `a`, or −1. */
function indexOf(a: Int32Array, x: number): number {
  const i = upperBound(a, x) - 1;
  return i >= 0 && a[i] === x ? i : -1;
}
function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let i = 0,
    j = 0,
    n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!,
      y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.subarray(0, n);
}
function union(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0,
    j = 0,
    n = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity,
      y = j < b.length ? b[j]! : Infinity;
    if (x <= y) {
      out[n++] = x;
      i++;
      if (x === y) j++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  return out.subarray(0, n);
}

/**
 * One FTS5 table held in memory as postings (term → rows, with per-column instance counts) and row
 * lengths, answering the lexical planner's expressions (domain/fts-expression.ts) with the same matches
 * and the same BM25 values as FTS5's `bm25()` without a row lookup per match: FTS5's bm25 reads each
 * matching row's size from `%_docsize` and its instances from the position lists, about 2.6 µs per
 * match on a 2-core machine, where this is a few array reads.
 *
 * BM25 as in ext/fts5/fts5_aux.c `fts5Bm25Function`: for each phrase i of the expression (in order),
 * IDF_i = ln((N − n_i + 0.5) / (n_i + 0.5)), at least 1e-6, where N is the table's rows and n_i the
 * rows holding phrase i (in its column, under a column filter); f_i the sum over the phrase's instances
 * in the row of its column's weight; D the row's tokens and avgdl the table's tokens per row;
 * score = −Σ IDF_i · f_i (k1 + 1) / (f_i + k1 (1 − b + b · D / avgdl)) with k1 = 1.2, b = 0.75.
 *
 * Held: phrases of one token (as FTS5's tokenizer makes it, db/fts-tokenizer.ts), AND, OR and a column
 * filter. Prefix phrases, phrases of several tokens or none, and expressions outside the planner's
 * subset get null from `matches`: the caller asks FTS5. So does every call inside an open transaction.
 *
 * The copy is read once (one pass over the table's fts5vocab `instance` table) on first use; afterwards
 * the rows changed since, as logged in `search_changes` of the table's kind, are tokenized again and
 * kept beside it (an overlay that replaces them), folded into the copy past `limits.overlay` rows. When
 * more rows than that changed at once, or the log was pruned unseen, the table is read again. Every call first replays the log from its mark, so no answer comes
 * from a stale copy.
 */
export function createFtsPostings(
  db: Database,
  changes: SearchChanges,
  t: FtsPostingsTable,
  limits: FtsPostingsLimits = FTS_POSTINGS_LIMITS,
) {
  if (t.columns.length > 16) throw new Error(`fts-postings: ${t.fts} has more than 16 columns`);
  // a phrase is in a row where its weighted frequency is above 0
  if (t.weights.length !== t.columns.length || t.weights.some((w) => !(w > 0)))
    throw new Error(`fts-postings: ${t.fts} needs a weight above 0 per column`);
  const ncols = t.columns.length;
  const stmts = new Map<string, Statement>();
  const prep = (sql: string): Statement => {
    let s = stmts.get(sql);
    if (!s) stmts.set(sql, (s = db.prepare(sql)));
    return s;
  };
  const tokenizer = createFtsTokenizer(db, t.fts);
  const instanceTable = `fts_postings_${t.fts}_instance`;
  const rowTable = `fts_postings_${t.fts}_row`;
  let instanceMade = false;
  /** Phrase texts and their FTS5 tokens (bounded: cleared past 4,096). */
  const phraseTokens = new Map<string, string[]>();
  const tokensOf = (text: string): string[] => {
    let toks = phraseTokens.get(text);
    if (!toks) {
      toks = tokenizer.tokens(text);
      if (phraseTokens.size >= 4096) phraseTokens.clear();
      phraseTokens.set(text, toks);
    }
    return toks;
  };
  /** Set once a read found the table larger than `limits.instances`: FTS5 answers for the process's life. */
  let tooLarge = limits.instances <= 0;

  /** Read the whole table (one read transaction: a consistent snapshot), or null past the instance limit. */
  /** Builds the block from instances given term by term, each term's rowids ascending. */
  const builder = (maxRow: number) => {
    const len = new Int32Array(maxRow + 1);
    const ids = new Map<string, number>();
    let start = new Int32Array(1024);
    let docs = new Int32Array(1 << 16);
    let tf = new Uint16Array((1 << 16) * ncols);
    let tokens = 0;
    /** postings written, and the last one's rowid */
    let n = 0;
    let doc = -1;
    return {
      term(tm: string): void {
        const id = ids.size;
        ids.set(tm, id);
        if (id + 2 > start.length) {
          const grown = new Int32Array(start.length * 2);
          grown.set(start);
          start = grown;
        }
        start[id] = n;
        doc = -1;
      },
      /** one instance in row `d`, column `col`; false when it cannot be held (out of order, count past 65,535) */
      add(d: number, col: number): boolean {
        if (d !== doc) {
          if (d < doc) return false;
          if (n === docs.length) {
            const d2 = new Int32Array(docs.length * 2);
            d2.set(docs);
            docs = d2;
            const t2 = new Uint16Array(tf.length * 2);
            t2.set(tf);
            tf = t2;
          }
          docs[n++] = d;
          doc = d;
        }
        const at = (n - 1) * ncols + col;
        if (tf[at] === 0xffff) return false;
        tf[at]!++;
        tokens++;
        if (d <= maxRow) len[d]!++;
        return true;
      },
      finish(): { block: Block; len: Int32Array; tokens: number } {
        start[ids.size] = n;
        return { block: { ids, start: start.slice(0, ids.size + 1), docs: docs.slice(0, n), tf: tf.slice(0, n * ncols) }, len, tokens };
      },
    };
  };

  /**
   * Read the whole table in one read transaction (a consistent snapshot), or null past the instance limit.
   * The instances are read as numbers alone (rowid · 16 + column), cut into terms by the `cnt` of the
   * table's fts5vocab `row` table, which lists the terms in the same index order: about a third of the
   * time of reading each instance's term as a string. Should the two ever disagree (a total that differs,
   * a rowid going back within a term), the instances are read again with their terms.
   */
  const load = (): State | null =>
    db.transaction((): State | null => {
      if (!instanceMade) {
        db.exec(
          `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${instanceTable} USING fts5vocab(main, ${t.fts}, 'instance');` +
            `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${rowTable} USING fts5vocab(main, ${t.fts}, 'row');`,
        );
        instanceMade = true;
      }
      const mark = changes.head();
      const maxRow = prep(`SELECT coalesce(max(id), 0) FROM ${t.fts}_docsize`).pluck().get() as number;
      const exists = new Uint8Array(maxRow + 1);
      let rows = 0;
      for (const id of prep(`SELECT id FROM ${t.fts}_docsize`).pluck().iterate() as IterableIterator<number>) {
        exists[id] = 1;
        rows++;
      }
      const vocab = prep(`SELECT term, cnt FROM temp.${rowTable}`).raw().all() as [string, number][];
      let total = 0;
      for (const v of vocab) total += v[1];
      if (total > limits.instances) return null;
      const colOf = `CASE col ${t.columns.map((c, i) => `WHEN '${c}' THEN ${i}`).join(' ')} END`;
      const fast = (): ReturnType<ReturnType<typeof builder>['finish']> | null => {
        const b = builder(maxRow);
        let ti = -1;
        let left = 0;
        for (const x of prep(`SELECT doc * 16 + ${colOf} FROM temp.${instanceTable}`).pluck().iterate() as IterableIterator<number>) {
          while (left === 0) {
            if (++ti >= vocab.length) return null;
            b.term(vocab[ti]![0]);
            left = vocab[ti]![1];
          }
          left--;
          if (!b.add(Math.floor(x / 16), x % 16)) return null;
        }
        return left === 0 && ti === vocab.length - 1 ? b.finish() : null;
      };
      const slow = (): ReturnType<ReturnType<typeof builder>['finish']> | null => {
        const b = builder(maxRow);
        let term: string | null = null;
        for (const [tm, x] of prep(`SELECT term, doc * 16 + ${colOf} FROM temp.${instanceTable}`).raw().iterate() as IterableIterator<
          [string, number]
        >) {
          if (tm !== term) b.term((term = tm));
          if (!b.add(Math.floor(x / 16), x % 16)) return null;
        }
        return b.finish();
      };
      const built = fast() ?? slow();
      if (!built) return null;
      return {
        mark,
        block: built.block,
        len: built.len,
        exists,
        rows,
        tokens: built.tokens,
        overlay: new Map(),
        lists: new Map(),
        compiled: new Map(),
        cached: 0,
      };
    })();

  /** Tokenize rows again and put them in the overlay. */
  const replay = (s: State, seqs: number[]): void => {
    const fresh = new Map<number, { len: number; terms: Map<string, Uint32Array> }>();
    for (const [term, doc, col] of tokenizer.instancesOf(seqs)) {
      let r = fresh.get(doc);
      if (!r) fresh.set(doc, (r = { len: 0, terms: new Map() }));
      let c = r.terms.get(term);
      if (!c) r.terms.set(term, (c = new Uint32Array(ncols)));
      c[col]!++;
      r.len++;
    }
    // a row with no token at all is still a row: ask the table which of the others exist
    const present = new Set(
      prep(`SELECT id FROM ${t.fts}_docsize WHERE id IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(seqs)) as number[],
    );
    for (const seq of seqs) s.overlay.set(seq, present.has(seq) ? (fresh.get(seq) ?? { len: 0, terms: new Map() }) : null);
  };

  /**
   * Fold the overlay into the block (no SQL: the rows were tokenized when replayed): each term's postings
   * without the overlaid rows, merged in rowid order with the overlay's; terms new to the table appended.
   */
  const merge = (s: State): void => {
    const b = s.block;
    const add = new Map<string, [number, Uint32Array][]>();
    let added = 0;
    for (const [seq, r] of s.overlay) {
      if (!r) continue;
      for (const [term, cols] of r.terms) {
        let l = add.get(term);
        if (!l) add.set(term, (l = []));
        l.push([seq, cols]);
        added++;
      }
    }
    for (const l of add.values()) l.sort((x, y) => x[0] - y[0]);
    const cap = b.docs.length + added;
    const docs = new Int32Array(cap);
    const tf = new Uint16Array(cap * ncols);
    const ids = new Map<string, number>();
    const start = new Int32Array(b.ids.size + add.size + 1);
    let n = 0;
    const put = (d: number, cols: ArrayLike<number>, from: number): void => {
      docs[n] = d;
      for (let c = 0; c < ncols; c++) tf[n * ncols + c] = Math.min(0xffff, cols[from + c]!);
      n++;
    };
    const copy = (term: string, lo: number, hi: number): void => {
      start[ids.size] = n;
      ids.set(term, ids.size);
      const extra = add.get(term) ?? [];
      let j = 0;
      for (let i = lo; i < hi; i++) {
        const d = b.docs[i]!;
        for (; j < extra.length && extra[j]![0] < d; j++) put(extra[j]![0], extra[j]![1], 0);
        if (!s.overlay.has(d)) put(d, b.tf, i * ncols);
      }
      for (; j < extra.length; j++) put(extra[j]![0], extra[j]![1], 0);
      add.delete(term);
    };
    for (const [term, id] of b.ids) copy(term, b.start[id]!, b.start[id + 1]!);
    for (const term of [...add.keys()]) copy(term, 0, 0);
    start[ids.size] = n;
    s.block = { ids, start: start.slice(0, ids.size + 1), docs: docs.slice(0, n), tf: tf.slice(0, n * ncols) };
    const { rows, tokens } = totals(s);
    let top = s.len.length - 1;
    for (const seq of s.overlay.keys()) top = Math.max(top, seq);
    if (top >= s.len.length) {
      const len = new Int32Array(top + 1);
      len.set(s.len);
      const exists = new Uint8Array(top + 1);
      exists.set(s.exists);
      s.len = len;
      s.exists = exists;
    }
    for (const [seq, r] of s.overlay) {
      s.len[seq] = r?.len ?? 0;
      s.exists[seq] = r ? 1 : 0;
    }
    s.rows = rows;
    s.tokens = tokens;
    s.overlay = new Map();
  };

  let state: State | null = null;
  /** The copy brought up to the log's head, or null when FTS5 must answer. */
  const current = (): State | null => {
    if (tooLarge || db.inTransaction) return null;
    const head = changes.head();
    if (state && state.mark === head) return state;
    if (state && !changes.gap(state.mark)) {
      const seqs = changes.seqsSince(state.mark, t.kind, limits.overlay + 1).filter((q) => q > 0);
      if (seqs.length <= limits.overlay) {
        replay(state, seqs);
        if (state.overlay.size > limits.overlay) merge(state);
        state.mark = head;
        state.lists = new Map();
        state.compiled = new Map();
        state.cached = 0;
        return state;
      }
    }
    state = load();
    if (!state) tooLarge = true;
    return state;
  };

  /** Rows and tokens of the table now (the read, less the overlaid rows as read, plus the overlay). */
  const totals = (s: State): { rows: number; tokens: number } => {
    let rows = s.rows,
      tokens = s.tokens;
    for (const [seq, r] of s.overlay) {
      if (seq < s.exists.length && s.exists[seq]) {
        rows--;
        tokens -= s.len[seq]!;
      }
      if (r) {
        rows++;
        tokens += r.len;
      }
    }
    return { rows, tokens };
  };

  /** Account for `bytes` more in the state's caches, emptying both first when they would pass CACHE_BYTES. */
  const keep = (s: State, bytes: number): void => {
    if (s.cached + bytes > CACHE_BYTES) {
      s.lists.clear();
      s.compiled.clear();
      s.cached = 0;
    }
    if (Number.isFinite(bytes)) s.cached += bytes;
  };

  /** The rows holding `term` (in column `col`, or any when −1) and their weighted frequency, now. */
  const listOf = (s: State, term: string, col: number): PhraseList => {
    const key = `${col}|${term}`;
    const hit = s.lists.get(key);
    if (hit) return hit;
    const { block } = s;
    const id = block.ids.get(term);
    const lo = id === undefined ? 0 : block.start[id]!;
    const hi = id === undefined ? 0 : block.start[id + 1]!;
    const docs = new Int32Array(hi - lo);
    const f = new Float64Array(hi - lo);
    const overlaid = s.overlay.size > 0;
    let n = 0;
    for (let i = lo; i < hi; i++) {
      const d = block.docs[i]!;
      if (overlaid && s.overlay.has(d)) continue;
      const o = i * ncols;
      let w = 0;
      if (col >= 0) w = t.weights[col]! * block.tf[o + col]!;
      else for (let c = 0; c < ncols; c++) w += t.weights[c]! * block.tf[o + c]!;
      if (w === 0) continue;
      docs[n] = d;
      f[n++] = w;
    }
    let list: PhraseList = { docs: docs.subarray(0, n), f: f.subarray(0, n) };
    const extra: [number, number][] = [];
    for (const [seq, r] of s.overlay) {
      const cs = r?.terms.get(term);
      if (!cs) continue;
      let w = 0;
      if (col >= 0) w = t.weights[col]! * cs[col]!;
      else for (let c = 0; c < ncols; c++) w += t.weights[c]! * cs[c]!;
      if (col < 0 || cs[col]! > 0) extra.push([seq, w]);
    }
    if (extra.length > 0) {
      const merged = [...list.docs].map((d, i): [number, number] => [d, list.f[i]!]).concat(extra);
      merged.sort((a, b) => a[0] - b[0]);
      list = { docs: Int32Array.from(merged, (x) => x[0]), f: Float64Array.from(merged, (x) => x[1]) };
    }
    keep(s, list.docs.byteLength + list.f.byteLength);
    s.lists.set(key, list);
    return list;
  };

  /**
   * The matches of a parsed expression, its tree over phrase numbers and its phrases in order, or null
   * when it holds something not held here.
   */
  const evaluate = (s: State, n: FtsNode, col: number, phrases: PhraseList[]): { docs: Int32Array; node: Compiled } | null => {
    if (n.k === 'phrase') {
      if (n.prefix) return null;
      const toks = tokensOf(n.text);
      if (toks.length !== 1) return null;
      const list = listOf(s, toks[0]!, col);
      phrases.push(list);
      return { docs: list.docs, node: { k: 'phrase', i: phrases.length - 1 } };
    }
    if (n.k === 'col') return evaluate(s, n.expr, t.columns.indexOf(n.column), phrases);
    let acc: Int32Array | null = null;
    const items: Compiled[] = [];
    for (const item of n.items) {
      const r = evaluate(s, item, col, phrases);
      if (!r) return null;
      items.push(r.node);
      acc = acc === null ? r.docs : n.k === 'and' ? intersect(acc, r.docs) : union(acc, r.docs);
    }
    return { docs: acc ?? new Int32Array(0), node: { k: n.k, items } };
  };

  const compile = (s: State, match: string): FtsMatches | null => {
    let tree: FtsNode;
    try {
      tree = parseFtsSubset(match, t.columns);
    } catch (e) {
      if (e instanceof FtsSubsetError) return null;
      throw e;
    }
    const phrases: PhraseList[] = [];
    const ev = evaluate(s, tree, -1, phrases);
    if (!ev) return null;
    const { docs, node: root } = ev;
    keep(s, docs.byteLength);
    const { rows, tokens } = totals(s);
    const avgdl = tokens / rows;
    const idf = phrases.map((p) => {
      const v = Math.log((rows - p.docs.length + 0.5) / (p.docs.length + 0.5));
      return v <= 0 ? 1e-6 : v;
    });
    const lenOf = (d: number): number => {
      if (s.overlay.has(d)) return s.overlay.get(d)?.len ?? 0;
      return d < s.len.length ? s.len[d]! : 0;
    };
    const np = phrases.length;
    /**
     * bm25 of matching rows `ws` (ascending), as FTS5 computes it: a phrase's instances count only where
     * its part of the expression matches the row (FTS5 empties the position lists of an OR's branches
     * that do not match, fts5ExprNodeZeroPoslist), and the terms are added phrase by phrase per row.
     */
    const bm25Of = (ws: Int32Array): Float64Array => {
      const n = ws.length;
      // each phrase's weighted frequency in each row (0: not in the row), by one walk of its list
      const fv = new Float64Array(n * np);
      for (let i = 0; i < np; i++) {
        const p = phrases[i]!;
        let j = n > 0 ? lowerBound(p.docs, ws[0]!) : 0;
        for (let r = 0; r < n; r++) {
          const d = ws[r]!;
          while (j < p.docs.length && p.docs[j]! < d) j++;
          if (j < p.docs.length && p.docs[j] === d) fv[r * np + i] = p.f[j]!;
        }
      }
      const active = new Uint8Array(np);
      const matched = (x: Compiled, o: number): boolean => {
        if (x.k === 'phrase') return fv[o + x.i]! > 0;
        if (x.k === 'and') {
          for (const y of x.items) if (!matched(y, o)) return false;
          return true;
        }
        for (const y of x.items) if (matched(y, o)) return true;
        return false;
      };
      const activate = (x: Compiled, o: number): void => {
        if (x.k === 'phrase') active[x.i] = 1;
        else for (const y of x.items) if (x.k === 'and' || matched(y, o)) activate(y, o);
      };
      // a phrase, or an AND of phrases, that matches holds every phrase: nothing to walk per row
      const allActive = root.k === 'phrase' || (root.k === 'and' && root.items.every((y) => y.k === 'phrase'));
      if (allActive) active.fill(1);
      const out = new Float64Array(n);
      for (let r = 0; r < n; r++) {
        const o = r * np;
        if (!allActive) {
          active.fill(0);
          activate(root, o);
        }
        const norm = K1 * (1 - B + (B * lenOf(ws[r]!)) / avgdl);
        let score = 0;
        for (let i = 0; i < np; i++) {
          const f = active[i] ? fv[o + i]! : 0;
          score += idf[i]! * ((f * (K1 + 1.0)) / (f + norm));
        }
        out[r] = -1.0 * score;
      }
      return out;
    };
    return {
      count: (hi) => upperBound(docs, hi),
      newest(hi, lim, skip) {
        const picked: number[] = [];
        for (let i = upperBound(docs, hi) - 1; i >= 0 && picked.length < lim; i--) {
          const d = docs[i]!;
          if (!skip?.has(d)) picked.push(d);
        }
        const ws = Int32Array.from(picked).reverse();
        const scores = bm25Of(ws);
        return picked.map((d, i) => [d, scores[ws.length - 1 - i]!]);
      },
      top(hi, lim, k) {
        const end = upperBound(docs, hi);
        const ws = docs.subarray(Math.max(0, end - lim), end);
        const n = ws.length;
        if (n === 0) return [];
        const bm25 = bm25Of(ws);
        const order = new Uint32Array(n);
        for (let r = 0; r < n; r++) order[r] = r;
        // ascending bm25, ties newest (highest rowid: the later position) first
        order.sort((a, b) => bm25[a]! - bm25[b]! || b - a);
        const out = new Array<number>(Math.min(k, n));
        for (let r = 0; r < out.length; r++) out[r] = ws[order[r]!]!;
        return out;
      },
      has: (rowid) => indexOf(docs, rowid) >= 0,
    };
  };

  const matchesIn = (s: State, match: string): FtsMatches | null => {
    let m = s.compiled.get(match);
    if (m === undefined) {
      m = compile(s, match);
      if (s.compiled.size >= 256) keep(s, Infinity);
      s.compiled.set(match, m);
    }
    return m;
  };

  return {
    /**
     * The matches of an FTS5 expression of the planner's subset in the whole table, current with every
     * committed write; null when FTS5 must answer (see the module note).
     */
    matches(match: string): FtsMatches | null {
      const s = current();
      return s ? matchesIn(s, match) : null;
    },
    /**
     * The table as it stands now, for the calls of one request (the log is read once, not per call);
     * null when FTS5 must answer. The view answers as of when it was taken until a later call brings
     * the copy up to date, and from the updated copy after that (a state is updated in place).
     */
    view(): FtsPostingsView | null {
      const s = current();
      if (!s) return null;
      const mark = s.mark;
      // a later replay changes the state in place: past it, the view asks the state brought up to date
      return { matches: (match) => (s.mark === mark && !db.inTransaction ? matchesIn(s, match) : this.matches(match)) };
    },
  };
}
export type FtsPostings = ReturnType<typeof createFtsPostings>;
