import type { PhraseList } from '../domain/fts-bm25.ts';

/**
 * The postings of every term as read, in one block (compressed sparse rows): term `id`'s postings are
 * `start[id]` … `start[id + 1] − 1`, each a rowid (ascending within the term) and its instance count in
 * each column (`tf[posting · columns + column]`). About 4 + 2 · columns bytes per term and row.
 */
export interface Block {
  ids: Map<string, number>;
  start: Int32Array;
  docs: Int32Array;
  tf: Uint16Array;
}
/** A row changed since the read: its length in tokens and its per-column count of each term (null: row gone). */
export type OverlayRow = { len: number; terms: Map<string, Uint32Array> } | null;
/** Rows changed since the read, by rowid: they replace the block's postings of those rows. */
export type Overlay = Map<number, OverlayRow>;

/**
 * Builds a block from token instances given term by term (each term's rowids ascending), with each
 * row's length in tokens (rowids up to `maxRow`) and the tokens added.
 */
export function blockBuilder(ncols: number, maxRow: number) {
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
}

/**
 * `b` with the overlay folded in: each term's postings without the overlaid rows, merged in rowid order
 * with the overlay's; terms new to the table appended (counts past 65,535 kept at 65,535).
 */
export function foldOverlay(b: Block, overlay: Overlay, ncols: number): Block {
  const add = new Map<string, [number, Uint32Array][]>();
  let added = 0;
  for (const [seq, r] of overlay) {
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
      if (!overlay.has(d)) put(d, b.tf, i * ncols);
    }
    for (; j < extra.length; j++) put(extra[j]![0], extra[j]![1], 0);
    add.delete(term);
  };
  for (const [term, id] of b.ids) copy(term, b.start[id]!, b.start[id + 1]!);
  for (const term of [...add.keys()]) copy(term, 0, 0);
  start[ids.size] = n;
  return { ids, start: start.slice(0, ids.size + 1), docs: docs.slice(0, n), tf: tf.slice(0, n * ncols) };
}

/**
 * A term's weighted frequency in one row: Σ weight × count over the columns counted (column `col`, or
 * every column when −1), the counts being `counts[at + column]`.
 */
function weighted(weights: readonly number[], counts: ArrayLike<number>, at: number, col: number): number {
  if (col >= 0) return weights[col]! * counts[at + col]!;
  let w = 0;
  for (let c = 0; c < weights.length; c++) w += weights[c]! * counts[at + c]!;
  return w;
}

/**
 * The rows holding `term` (in column `col`, or any when −1) in the block as the overlay changes it, with
 * the term's weighted frequency in each (Σ weight × count over the columns counted), rowids ascending.
 */
export function phraseList(block: Block, overlay: Overlay, weights: readonly number[], term: string, col: number): PhraseList {
  const ncols = weights.length;
  const id = block.ids.get(term);
  const lo = id === undefined ? 0 : block.start[id]!;
  const hi = id === undefined ? 0 : block.start[id + 1]!;
  const docs = new Int32Array(hi - lo);
  const f = new Float64Array(hi - lo);
  const overlaid = overlay.size > 0;
  let n = 0;
  for (let i = lo; i < hi; i++) {
    const d = block.docs[i]!;
    if (overlaid && overlay.has(d)) continue;
    const o = i * ncols;
    const w = weighted(weights, block.tf, o, col);
    if (w === 0) continue;
    docs[n] = d;
    f[n++] = w;
  }
  let list: PhraseList = { docs: docs.subarray(0, n), f: f.subarray(0, n) };
  const extra: [number, number][] = [];
  for (const [seq, r] of overlay) {
    const cs = r?.terms.get(term);
    if (!cs) continue;
    if (col < 0 || cs[col]! > 0) extra.push([seq, weighted(weights, cs, 0, col)]);
  }
  if (extra.length > 0) {
    const merged = [...list.docs].map((d, i): [number, number] => [d, list.f[i]!]).concat(extra);
    merged.sort((a, b) => a[0] - b[0]);
    list = { docs: Int32Array.from(merged, (x) => x[0]), f: Float64Array.from(merged, (x) => x[1]) };
  }
  return list;
}

/** The block's terms sorted (code-unit order), made once per block. */
const sortedTerms = new WeakMap<Block, string[]>();

/**
 * The rows holding any term that starts with `prefix` (FTS5's prefix phrase `"prefix"*`), in column `col`
 * (−1: any), with the phrase's weighted frequency in each: the sum over those terms (every token
 * starting with the prefix is one instance of the phrase), rowids ascending. Null when the terms hold
 * more than `maxPostings` postings together (FTS5 answers such a short prefix from its prefix index).
 */
export function prefixList(
  block: Block,
  overlay: Overlay,
  weights: readonly number[],
  prefix: string,
  col: number,
  maxPostings: number,
): PhraseList | null {
  let sorted = sortedTerms.get(block);
  if (!sorted) sortedTerms.set(block, (sorted = [...block.ids.keys()].sort()));
  let lo = 0,
    hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  const terms: string[] = [];
  let postings = 0;
  for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix); i++) {
    const id = block.ids.get(sorted[i]!)!;
    postings += block.start[id + 1]! - block.start[id]!;
    if (postings > maxPostings) return null;
    terms.push(sorted[i]!);
  }
  // terms only rows written since the read hold
  const fresh = new Set<string>();
  for (const r of overlay.values())
    if (r) for (const term of r.terms.keys()) if (term.startsWith(prefix) && !block.ids.has(term)) fresh.add(term);
  terms.push(...fresh);
  if (terms.length === 1) return phraseList(block, overlay, weights, terms[0]!, col);
  return sumPostings(block, overlay, weights, prefix, terms, col);
}

/**
 * The prefix phrase's rows: each row's weighted frequency summed over `terms` (integer-weighted counts:
 * exact in any order), as `phraseList` of each term would give them (a block row whose weight in the
 * column is 0 is left out; the overlay's rows replace the block's), accumulated by rowid in flat arrays
 * (a Map per posting cost ~10 ms and its garbage on a two-letter prefix of 50,000 products).
 */
function sumPostings(
  block: Block,
  overlay: Overlay,
  weights: readonly number[],
  prefix: string,
  terms: readonly string[],
  col: number,
): PhraseList {
  const ncols = weights.length;
  let maxRow = 0;
  for (const term of terms) {
    const id = block.ids.get(term);
    if (id !== undefined && block.start[id + 1]! > block.start[id]!) maxRow = Math.max(maxRow, block.docs[block.start[id + 1]! - 1]!);
  }
  for (const seq of overlay.keys()) maxRow = Math.max(maxRow, seq);
  const sum = new Float64Array(maxRow + 1);
  const held = new Uint8Array(maxRow + 1);
  const touched: number[] = [];
  const hold = (d: number, w: number): void => {
    if (held[d] === 0) {
      held[d] = 1;
      touched.push(d);
    }
    sum[d]! += w;
  };
  const overlaid = overlay.size > 0;
  for (const term of terms) {
    const id = block.ids.get(term);
    if (id === undefined) continue;
    for (let i = block.start[id]!, hi = block.start[id + 1]!; i < hi; i++) {
      const d = block.docs[i]!;
      if (overlaid && overlay.has(d)) continue;
      const w = weighted(weights, block.tf, i * ncols, col);
      if (w !== 0) hold(d, w);
    }
  }
  for (const [seq, r] of overlay) {
    if (!r) continue;
    for (const [term, cs] of r.terms) {
      if (!term.startsWith(prefix)) continue;
      if (col < 0 || cs[col]! > 0) hold(seq, weighted(weights, cs, 0, col));
    }
  }
  // rowids ascending: a walk of the marks when many rows hold the prefix, else a sort of the few
  let docs: Int32Array;
  if (touched.length * 16 > maxRow) {
    docs = new Int32Array(touched.length);
    for (let d = 0, n = 0; d <= maxRow; d++) if (held[d] === 1) docs[n++] = d;
  } else docs = Int32Array.from(touched).sort();
  const f = new Float64Array(docs.length);
  for (let i = 0; i < docs.length; i++) f[i] = sum[docs[i]!]!;
  return { docs, f };
}
