import type { PhraseList } from '../domain/fts-bm25.ts';

/**
 * Every row's tokens in their order, column by column, as term numbers: what tells whether a phrase of
 * several tokens is in a row and how often. FTS5 matches a phrase where its tokens stand at consecutive
 * positions of one column (https://www.sqlite.org/fts5.html#fts5_phrases); the positions are the
 * `offset` of the table's fts5vocab `instance` rows. 4 bytes per token instance and per row and column.
 */
export interface Forward {
  /** term → number, for the terms of `seq` and `patch` (grows as changed rows bring new terms) */
  nums: Map<string, number>;
  ncols: number;
  /** row `r`, column `c` holds `seq[at[r · ncols + c]]` … `seq[at[r · ncols + c + 1] − 1]` (rows up to `at.length / ncols − 1`) */
  at: Int32Array;
  /** term numbers, −1 at a position no token was read for */
  seq: Int32Array;
  /** rows changed since `at`/`seq` were made: each column's term numbers in order (null: the row is gone) */
  patch: Map<number, Int32Array[] | null>;
}

/** Longest column held, in tokens: positions are read packed in 16 bits (a longer column leaves phrases to FTS5). */
const MAX_POSITION = 0xffff;

/**
 * Builds a Forward from `total` token instances given in any order as (term number, row, column, position)
 * with rows up to `maxRow`. `finish` gives null when an instance cannot be held (a position past
 * MAX_POSITION, a row past `maxRow`, more instances than `total`).
 */
export function forwardBuilder(ncols: number, maxRow: number, total: number) {
  const size = new Int32Array((maxRow + 1) * ncols + 1);
  const rc = new Int32Array(total);
  const pos = new Uint16Array(total);
  const num = new Int32Array(total);
  let n = 0;
  let bad = false;
  return {
    add(term: number, row: number, col: number, position: number): void {
      if (bad || n === total || row > maxRow || position >= MAX_POSITION) {
        bad = true;
        return;
      }
      const i = row * ncols + col;
      if (size[i]! <= position) size[i] = position + 1;
      rc[n] = i;
      pos[n] = position;
      num[n++] = term;
    },
    /** @param nums the term numbers `add` was given, by term (copied) */
    finish(nums: ReadonlyMap<string, number>): Forward | null {
      if (bad) return null;
      // `size` becomes the start of each row and column (exclusive prefix sums)
      let sum = 0;
      for (let i = 0; i < size.length; i++) {
        const s = size[i]!;
        size[i] = sum;
        sum += s;
      }
      const seq = new Int32Array(sum).fill(-1);
      for (let k = 0; k < n; k++) seq[size[rc[k]!]! + pos[k]!] = num[k]!;
      return { nums: new Map(nums), ncols, at: size, seq, patch: new Map() };
    },
  };
}

/** The number of `term` in `f`, a new one when the term is new. */
function numberOf(f: Forward, term: string): number {
  let x = f.nums.get(term);
  if (x === undefined) f.nums.set(term, (x = f.nums.size));
  return x;
}

/**
 * Records changed rows: `instances` are every token instance of the rows `rows` as they stand now, as
 * [term, row, column index, position]; a row of `rows` with none is recorded empty when `present` holds
 * it, gone otherwise.
 */
export function patchForward(
  f: Forward,
  rows: readonly number[],
  present: ReadonlySet<number>,
  instances: readonly (readonly [string, number, number, number])[],
): void {
  const cols = new Map<number, number[][]>();
  for (const [term, row, col, position] of instances) {
    let r = cols.get(row);
    if (!r) cols.set(row, (r = Array.from({ length: f.ncols }, () => [])));
    r[col]![position] = numberOf(f, term);
  }
  for (const row of rows)
    f.patch.set(
      row,
      present.has(row) ? (cols.get(row) ?? Array.from({ length: f.ncols }, () => [])).map((c) => Int32Array.from(c, (x) => x ?? -1)) : null,
    );
}

/** `f` with its patch folded into the arrays (no patch left), rows up to the highest it holds. */
export function foldForward(f: Forward): Forward {
  if (f.patch.size === 0) return f;
  const { ncols } = f;
  let rows = (f.at.length - 1) / ncols;
  for (const row of f.patch.keys()) rows = Math.max(rows, row + 1);
  const at = new Int32Array(rows * ncols + 1);
  const span = (row: number, c: number): [number, number] => {
    const i = row * ncols + c;
    return i + 1 < f.at.length ? [f.at[i]!, f.at[i + 1]!] : [0, 0];
  };
  let sum = 0;
  for (let row = 0; row < rows; row++) {
    const p = f.patch.get(row);
    for (let c = 0; c < ncols; c++) {
      at[row * ncols + c] = sum;
      if (p !== undefined) sum += p ? p[c]!.length : 0;
      else {
        const [lo, hi] = span(row, c);
        sum += hi - lo;
      }
    }
  }
  at[rows * ncols] = sum;
  const seq = new Int32Array(sum);
  for (let row = 0; row < rows; row++) {
    const p = f.patch.get(row);
    for (let c = 0; c < ncols; c++) {
      if (p !== undefined) {
        if (p) seq.set(p[c]!, at[row * ncols + c]);
      } else {
        const [lo, hi] = span(row, c);
        seq.set(f.seq.subarray(lo, hi), at[row * ncols + c]);
      }
    }
  }
  return { nums: f.nums, ncols, at, seq, patch: new Map() };
}

/** How many times the term numbers `phrase` stand at consecutive positions of row `row`, column `col`. */
function occurrences(f: Forward, row: number, col: number, phrase: Int32Array): number {
  let seq: Int32Array, lo: number, hi: number;
  const p = f.patch.get(row);
  if (p !== undefined) {
    if (!p) return 0;
    seq = p[col]!;
    lo = 0;
    hi = seq.length;
  } else {
    const i = row * f.ncols + col;
    if (i + 1 >= f.at.length) return 0;
    seq = f.seq;
    lo = f.at[i]!;
    hi = f.at[i + 1]!;
  }
  const n = phrase.length;
  let count = 0;
  // each start counts, overlapping ones too ("a a" twice in "a a a"), as FTS5 counts phrase instances
  for (let s = lo; s + n <= hi; s++) {
    let k = 0;
    while (k < n && seq[s + k] === phrase[k]) k++;
    if (k === n) count++;
  }
  return count;
}

/**
 * The rows holding the phrase of several tokens `terms` (in column `col`, or any when −1), among
 * `candidates` (ascending: the rows holding every one of its terms, from the postings), with its
 * weighted frequency in each: Σ weight × instances over the columns counted, as FTS5's bm25 counts a
 * phrase's instances (sqlite/ext/fts5/fts5_aux.c, fts5Bm25Function).
 */
export function forwardPhraseList(
  f: Forward,
  weights: readonly number[],
  terms: readonly string[],
  col: number,
  candidates: Int32Array,
): PhraseList {
  const phrase = new Int32Array(terms.length);
  for (let k = 0; k < terms.length; k++) {
    const x = f.nums.get(terms[k]!);
    if (x === undefined) return { docs: new Int32Array(0), f: new Float64Array(0) };
    phrase[k] = x;
  }
  const docs = new Int32Array(candidates.length);
  const fr = new Float64Array(candidates.length);
  let n = 0;
  for (let i = 0; i < candidates.length; i++) {
    const d = candidates[i]!;
    let w = 0;
    if (col >= 0) w = weights[col]! * occurrences(f, d, col, phrase);
    else for (let c = 0; c < f.ncols; c++) w += weights[c]! * occurrences(f, d, c, phrase);
    if (w === 0) continue;
    docs[n] = d;
    fr[n++] = w;
  }
  return { docs: docs.subarray(0, n), f: fr.subarray(0, n) };
}
