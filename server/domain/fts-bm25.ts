import { FtsSubsetError, parseFtsSubset, type FtsNode } from './fts-expression.ts';
import { stableDescending } from './stable-order.ts';

/**
 * The lexical planner's FTS5 expressions (domain/fts-expression.ts) evaluated over postings held in
 * memory, with FTS5's own BM25: the same matches and the same `bm25()` values as the FTS5 table the
 * postings were read from (db/fts-postings.ts holds them; a parity test compares the two).
 *
 * BM25 as in SQLite's ext/fts5/fts5_aux.c `fts5Bm25Function`: for each phrase i of the expression (in
 * order), IDF_i = ln((N − n_i + 0.5) / (n_i + 0.5)), at least 1e-6, where N is the table's rows and n_i
 * the rows holding phrase i (in its column, under a column filter); f_i the sum over the phrase's
 * instances in the row of its column's weight, counted only where the phrase's part of the expression
 * matches the row (FTS5 empties the position lists of an OR's branches that do not match,
 * fts5ExprNodeZeroPoslist); D the row's tokens and avgdl the table's tokens per row;
 * bm25 = −Σ IDF_i · f_i (k1 + 1) / (f_i + k1 (1 − b + b · D / avgdl)) with k1 = 1.2, b = 0.75, the terms
 * added phrase by phrase as FTS5 adds them (the same doubles in the same order).
 */

/** BM25 constants of FTS5's `bm25()` (ext/fts5/fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;

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
  /**
   * `top`, with the phrases each row holds: bit i of `phrases[r]` is set when `rows[r]` is in the
   * list of the expression's i-th phrase (left to right, as the expression is written; under its column
   * filter). `phrases` is null when the expression has more than 32 phrases.
   */
  topPhrases(hi: number, lim: number, k: number): { rows: number[]; phrases: Uint32Array | null };
  /** whether `rowid` matches */
  has(rowid: number): boolean;
  /** the rowids of `rowids` that match, ascending */
  filter(rowids: readonly number[]): number[];
}

/** The rows holding a term (in one column or any), ascending, with the bm25 weighted frequency f(q, D) of each. */
export interface PhraseList {
  docs: Int32Array;
  f: Float64Array;
}

/** The postings an expression is evaluated over: one table as it stands. */
export interface PostingsSource {
  /** the table's columns, in declaration order (a column filter's index) */
  columns: readonly string[];
  /** the terms FTS5 makes of a phrase's text */
  tokenize: (text: string) => string[];
  /** the rows holding `term` in column `col` (−1: any column) with its weighted frequency in each */
  list: (term: string, col: number) => PhraseList;
  /** the same for the prefix phrase `"prefix"*` (any term starting with it); null: too many rows, FTS5 answers */
  prefixList: (prefix: string, col: number) => PhraseList | null;
  /** the same for a phrase of several terms (each at the position after the one before); null: FTS5 answers */
  phrase?: (terms: readonly string[], col: number) => PhraseList | null;
  /** rows of the table, and tokens in all of them */
  rows: number;
  tokens: number;
  /** tokens of one row (0 when it has none or is not there) */
  lenOf: (rowid: number) => number;
}

/** An expression over phrase numbers (their order in the expression). */
type Compiled = { k: 'phrase'; i: number } | { k: 'and' | 'or'; items: Compiled[] };

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
/** The rowids in both of the ascending `a` and `b`, ascending. */
export function intersect(a: Int32Array, b: Int32Array): Int32Array {
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

/** Whether an AND node lies beneath an OR node in `x` (`underOr`: `x` itself lies beneath one). */
function andBelowOr(x: Compiled, underOr: boolean): boolean {
  if (x.k === 'phrase') return false;
  if (x.k === 'and' && underOr) return true;
  return x.items.some((y) => andBelowOr(y, underOr || x.k === 'or'));
}

/**
 * The matches of a parsed expression, its tree over phrase numbers and its phrases in order, or null
 * when it holds a phrase of no token, a phrase of several the source cannot place, a prefix phrase of
 * several tokens or of too many rows (FTS5 must answer those).
 */
function evaluate(src: PostingsSource, n: FtsNode, col: number, phrases: PhraseList[]): { docs: Int32Array; node: Compiled } | null {
  if (n.k === 'phrase') {
    // FTS5 tokenizes a prefix phrase's text like any other (Porter stems it too) and matches the terms it starts
    const toks = src.tokenize(n.text);
    if (toks.length === 0 || (toks.length > 1 && (n.prefix || !src.phrase))) return null;
    const list = toks.length > 1 ? src.phrase!(toks, col) : n.prefix ? src.prefixList(toks[0]!, col) : src.list(toks[0]!, col);
    if (!list) return null;
    phrases.push(list);
    return { docs: list.docs, node: { k: 'phrase', i: phrases.length - 1 } };
  }
  if (n.k === 'col') return evaluate(src, n.expr, src.columns.indexOf(n.column), phrases);
  let acc: Int32Array | null = null;
  const items: Compiled[] = [];
  for (const item of n.items) {
    const r = evaluate(src, item, col, phrases);
    if (!r) return null;
    items.push(r.node);
    acc = acc === null ? r.docs : n.k === 'and' ? intersect(acc, r.docs) : union(acc, r.docs);
  }
  return { docs: acc ?? new Int32Array(0), node: { k: n.k, items } };
}

/**
 * The matches of an FTS5 expression of the planner's subset over `src`, and the bytes its match list
 * holds; null when the expression is outside what postings answer (a phrase of no token, one of several
 * tokens the source cannot place or ending in a prefix, a prefix phrase of too many rows, syntax outside
 * the subset): FTS5 must answer it.
 */
export function compileFtsMatches(match: string, src: PostingsSource): { matches: FtsMatches; bytes: number } | null {
  let tree: FtsNode;
  try {
    tree = parseFtsSubset(match, src.columns);
  } catch (e) {
    if (e instanceof FtsSubsetError) return null;
    throw e;
  }
  const phrases: PhraseList[] = [];
  const ev = evaluate(src, tree, -1, phrases);
  if (!ev) return null;
  const { docs, node: root } = ev;
  const { rows, tokens, lenOf } = src;
  const avgdl = tokens / rows;
  const idf = phrases.map((p) => {
    const v = Math.log((rows - p.docs.length + 0.5) / (p.docs.length + 0.5));
    return v <= 0 ? 1e-6 : v;
  });
  const np = phrases.length;
  /**
   * bm25 of matching rows `ws` (ascending), as FTS5 computes it: a phrase's instances count only where
   * its part of the expression matches the row (FTS5 empties the position lists of an OR's branches
   * that do not match, fts5ExprNodeZeroPoslist), and the terms are added phrase by phrase per row.
   */
  const bm25Of = (ws: Int32Array, held: Uint32Array | null = null): Float64Array => {
    const n = ws.length;
    // each phrase's weighted frequency in each row (0: not in the row), by one walk of its list;
    // `held` (when asked, np ≤ 32) gets bit i for each row in phrase i's list
    const fv = new Float64Array(n * np);
    for (let i = 0; i < np; i++) {
      const p = phrases[i]!;
      const bit = 1 << i;
      let j = n > 0 ? lowerBound(p.docs, ws[0]!) : 0;
      for (let r = 0; r < n; r++) {
        const d = ws[r]!;
        while (j < p.docs.length && p.docs[j]! < d) j++;
        if (j < p.docs.length && p.docs[j] === d) {
          fv[r * np + i] = p.f[j]!;
          if (held) held[r] = (held[r]! | bit) >>> 0;
        }
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
    // Without an AND beneath an OR, every phrase in a matching row is active exactly where it occurs
    // (a part that fails to match while holding a phrase of the row is an AND, and only an OR's
    // branches are emptied), and a phrase that does not occur adds 0: nothing to walk per row.
    const allActive = !andBelowOr(root, false);
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
  /** `top`, and with `withPhrases` the phrases each returned row holds (see `FtsMatches.topPhrases`). */
  const ranked = (hi: number, lim: number, k: number, withPhrases: boolean): { rows: number[]; phrases: Uint32Array | null } => {
    const end = upperBound(docs, hi);
    const ws = docs.subarray(Math.max(0, end - lim), end);
    const n = ws.length;
    const held = withPhrases ? new Uint32Array(n) : null;
    if (n === 0) return { rows: [], phrases: held };
    const bm25 = bm25Of(ws, held);
    // ascending bm25, ties newest (highest rowid: the later position) first: descending −bm25 over
    // the positions reversed, ties in (reversed) position order
    const key = new Float64Array(n);
    for (let r = 0; r < n; r++) key[r] = -bm25[n - 1 - r]!;
    const order = stableDescending(key);
    const rows = new Array<number>(Math.min(k, n));
    const phrases = held ? new Uint32Array(rows.length) : null;
    for (let r = 0; r < rows.length; r++) {
      const at = n - 1 - order[r]!;
      rows[r] = ws[at]!;
      if (phrases) phrases[r] = held![at]!;
    }
    return { rows, phrases };
  };
  const matches: FtsMatches = {
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
    top: (hi, lim, k) => ranked(hi, lim, k, false).rows,
    topPhrases: (hi, lim, k) => ranked(hi, lim, k, np <= 32),
    has: (rowid) => indexOf(docs, rowid) >= 0,
    filter(rowids) {
      const q = Float64Array.from(rowids).sort();
      const out: number[] = [];
      if (docs.length > 8 * q.length) {
        // a long match list: a binary search per rowid
        for (let i = 0; i < q.length; i++) if (indexOf(docs, q[i]!) >= 0) out.push(q[i]!);
        return out;
      }
      // one walk of both in rowid order
      for (let i = 0, j = 0; i < q.length; i++) {
        const x = q[i]!;
        while (j < docs.length && docs[j]! < x) j++;
        if (j < docs.length && docs[j] === x) out.push(x);
      }
      return out;
    },
  };
  return { matches, bytes: docs.byteLength };
}
