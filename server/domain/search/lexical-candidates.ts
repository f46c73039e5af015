/**
 * The dense part of the lexical planner (domain/search/lexical.ts), pure and over typed arrays: merging the
 * candidate lists, marking which candidates each match group holds, and scoring every candidate into
 * `LexicalHits`. Kept apart from the planner's async function so that these loops run as small
 * functions V8 optimises on their own (inside the planner they ran several times slower).
 */
import { appendMatchedBy, capPartialMatches, LexicalHits, type LexicalMatchedBy } from './hit-lists.ts';
import { stableDescending } from './stable-order.ts';

/** Bit of each lexical `matched_by` kind in a class mask. */
export const BY_BIT: Record<LexicalMatchedBy, number> = { text: 1, typo: 2, concept: 4 };

/**
 * Positions of seqs (integers ≥ 0): an open-addressing table with linear probing (Fibonacci hashing,
 * Knuth TAOCP vol. 3 §6.4), at most half full. A few hundred candidates per query are merged and
 * looked up several times; a `Map` cost about three times as much.
 */
export class SeqPositions {
  private readonly keys: Float64Array;
  private readonly vals: Int32Array;
  private readonly shift: number;
  size = 0;
  /** @param capacity the most seqs it will hold */
  constructor(capacity: number) {
    let bits = 4;
    while (1 << bits < capacity * 2) bits++;
    this.keys = new Float64Array(1 << bits).fill(-1);
    this.vals = new Int32Array(1 << bits);
    this.shift = 32 - bits;
  }
  private slot(seq: number): number {
    const mask = this.keys.length - 1;
    let i = Math.imul(seq | 0, 0x9e3779b1) >>> this.shift;
    while (this.keys[i] !== -1 && this.keys[i] !== seq) i = (i + 1) & mask;
    return i;
  }
  /** The position of `seq`, or −1. */
  get(seq: number): number {
    const i = this.slot(seq);
    return this.keys[i] === seq ? this.vals[i]! : -1;
  }
  /** Add `seq` at the next position unless it is there. @returns whether it was added */
  add(seq: number): boolean {
    const i = this.slot(seq);
    if (this.keys[i] === seq) return false;
    this.keys[i] = seq;
    this.vals[i] = this.size++;
    return true;
  }
}

/** The planner's candidate lists merged: each seq once, in list order. */
export interface Candidates {
  seqs: Float64Array;
  /** position of each seq in `seqs` */
  at: SeqPositions;
  /** the first list's seqs (the complete exact matches) are `seqs[0, exactN)` */
  exactN: number;
  /** 1 where the candidate is in the all-terms list */
  inAllTerms: Uint8Array;
}

/** Merge `lists` (the first one: the complete exact matches; `allTerms`: one of them, or empty). */
export function mergeCandidates(lists: readonly (readonly number[])[], allTerms: readonly number[]): Candidates {
  let most = 0;
  for (const l of lists) most += l.length;
  const at = new SeqPositions(most);
  const all = new Float64Array(most);
  let exactN = 0;
  for (let l = 0; l < lists.length; l++) {
    const list = lists[l]!;
    for (let r = 0; r < list.length; r++) if (at.add(list[r]!)) all[at.size - 1] = list[r]!;
    if (l === 0) exactN = at.size;
  }
  const seqs = all.slice(0, at.size);
  const inAllTerms = new Uint8Array(at.size);
  for (const seq of allTerms) {
    const j = at.get(seq);
    if (j >= 0) inAllTerms[j] = 1;
  }
  return { seqs, at, exactN, inAllTerms };
}

/**
 * The members of a group known without asking the index (`exact`: the complete exact matches hold it;
 * `allTerms`: the all-terms list's documents hold it), and the seqs of the other candidates, to look up.
 */
export function knownMembers(c: Candidates, exact: boolean, allTerms: boolean): { member: Uint8Array; rest: number[] } {
  const m = c.seqs.length;
  const member = new Uint8Array(m);
  const rest: number[] = [];
  for (let j = 0; j < m; j++) {
    if ((exact && j < c.exactN) || (allTerms && c.inAllTerms[j] === 1)) member[j] = 1;
    else rest.push(c.seqs[j]!);
  }
  return { member, rest };
}

/** Mark `found` seqs (a lookup's answer) as members. */
export function addMembers(c: Candidates, member: Uint8Array, found: Iterable<number>): void {
  for (const seq of found) {
    const j = c.at.get(seq);
    if (j >= 0) member[j] = 1;
  }
}

/**
 * Best quality per (candidate, term) and the classes that gave it (bit masks of BY_BIT), in flat arrays
 * indexed candidate-major (cell j·n + term).
 */
export interface TermCells {
  quality: Float64Array;
  byMask: Uint8Array;
  /** terms per candidate */
  n: number;
}

export function termCells(m: number, n: number): TermCells {
  return { quality: new Float64Array(m * n), byMask: new Uint8Array(m * n), n };
}

/** Record a group (its term, quality and class bit) for its members (null: every candidate). */
export function applyGroup(cells: TermCells, term: number, quality: number, bit: number, member: Uint8Array | null): void {
  const { n } = cells;
  const m = cells.quality.length / n;
  for (let j = 0, c = term; j < m; j++, c += n) {
    if (member && member[j] === 0) continue;
    if (quality > cells.quality[c]!) cells.quality[c] = quality;
    cells.byMask[c] = cells.byMask[c]! | bit;
  }
}

/**
 * Each candidate's relevance: 1 for a complete exact match, else Σ w_t·q_t / Σ w_t over its best
 * quality per term (capped at 1); its provenance (the kinds that gave each matched term its best
 * quality, in the order first found) and whether every term matched. Best first, ties in list order.
 * Incomplete candidates stay below `match` when a complete one reaches it (hit-lists.ts `capPartialMatches`).
 * @param groupsOf each term's groups: quality and the kind it reports
 * @param match the lowest relevance of a match (domain/search/lexical.ts `LEXICAL_MATCH`)
 */
export function scoreCandidates(
  c: Candidates,
  cells: TermCells,
  weights: readonly number[],
  groupsOf: readonly (readonly { quality: number; kind: LexicalMatchedBy }[])[],
  match: number,
): LexicalHits {
  const { n, quality, byMask } = cells;
  const m = c.seqs.length;
  const wsum = weights.reduce((a, b) => a + b, 0);
  const relevance = new Float64Array(m);
  const by = new Uint16Array(m);
  const complete = new Uint8Array(m);
  for (let j = 0; j < m; j++) {
    let sum = 0;
    let all = 1;
    let code = 0;
    for (let i = 0; i < n; i++) {
      const q = quality[j * n + i]!;
      sum += q * weights[i]!;
      if (q <= 0) {
        all = 0;
        continue;
      }
      const mask = byMask[j * n + i]!;
      for (const g of groupsOf[i]!) if (g.quality === q && mask & BY_BIT[g.kind]) code = appendMatchedBy(code, g.kind);
    }
    relevance[j] = Math.min(1, j < c.exactN ? 1 : sum / wsum);
    by[j] = code;
    complete[j] = all;
  }
  capPartialMatches(relevance, complete, match);
  // best first; ties keep list order (BM25: complete exact matches first, then the other lists)
  const order = stableDescending(relevance);
  const hits = new LexicalHits(new Float64Array(m), new Float64Array(m), new Uint16Array(m), new Uint8Array(m));
  for (let r = 0; r < m; r++) {
    const j = order[r]!;
    hits.seq[r] = c.seqs[j]!;
    hits.relevance[r] = relevance[j]!;
    hits.by[r] = by[j]!;
    hits.complete[r] = complete[j]!;
  }
  return hits;
}
