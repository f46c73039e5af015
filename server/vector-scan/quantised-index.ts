import { KERNEL_WASM_BASE64 } from './kernel-wasm.ts';

/** A scan hit: the row's key (asset or product seq) and its exact cosine similarity in [-1, 1]. */
export interface ScanHit {
  key: number;
  similarity: number;
}

/**
 * Which rows a scan admits: every `attrs` condition (the row's attribute `col` is one of `values`),
 * key ≤ `maxKey`, key ≠ `excludeKey`, and key in `keys` when given. Applied during the scan: a row
 * that fails never competes for the top k.
 */
export interface ScanFilter {
  attrs?: { col: number; values: number[] }[];
  maxKey?: number | undefined;
  excludeKey?: number | undefined;
  keys?: Set<number> | undefined;
}

/** Candidates re-ranked exactly per result wanted (quantised top `OVERSAMPLE`·k, then Float32 cosine). */
export const OVERSAMPLE = 4;
/**
 * The oversampling margin stops growing at this many results: a deep list (k = 500, the depth search
 * ranks for totals and paging) re-ranks k + 300 rows, not 4k. Its head is as exact as a k = 100 search;
 * only its tail order rests on the int8 scores more.
 */
export const MARGIN_CAP = 100;

/** Rows the int8 scan hands to the exact re-rank for `k` results. */
export const rerankBudget = (k: number): number => Math.max(k + 16, k + (OVERSAMPLE - 1) * Math.min(k, MARGIN_CAP));
const PAGE = 65536;
/** Estimated bytes of one entry of a V8 `Map<number, number>` (hash table slots at its load factor). */
const KEY_MAP_BYTES = 40;
const BINS = 4096;
const LO = -1.1;
const BIN_WIDTH = 2.2 / BINS;

let kernelModule: WebAssembly.Module | null = null;
const kernel = (): WebAssembly.Module => (kernelModule ??= new WebAssembly.Module(Buffer.from(KERNEL_WASM_BASE64, 'base64')));
const align16 = (n: number): number => (n + 15) & ~15;

interface Kernel {
  memory: WebAssembly.Memory;
  scan: (vecs: number, n: number, stride: number, query: number, scales: number, mask: number, out: number) => void;
}

/**
 * An in-memory vector partition (one workspace's vectors of one space, one store's of one model) with
 * an int8-quantised copy scanned by a WebAssembly SIMD kernel (kernel.wat).
 *
 * Algorithm: each vector is L2-normalised and quantised symmetrically per vector,
 * q = round(u · 127 / max|u|), keeping 1 / scale; a query is quantised the same way. The kernel scores
 * every admitted row (int8 dot × row scale ≈ cosine × query scale), a 4096-bin histogram of the scores
 * picks the best `rerankBudget(k)` rows (`OVERSAMPLE`·k up to k = `MARGIN_CAP`; whole bins, so ties at the cut are kept), and those are re-ranked
 * by exact cosine over the Float32 originals (double-precision arithmetic; sqlite-vec's
 * `vec_distance_cosine` agrees to ~1e-7). This is the scalar-quantisation + re-scoring scheme of e.g. Qdrant and
 * Lucene (int8 HNSW "oversample then rescore"); here the first stage is a flat scan, which on 100k×100-d
 * reads 11 MB instead of 40 MB. When no more rows are admitted than the candidate budget, every admitted
 * row is re-ranked exactly, so small partitions and selective filters give exact results.
 * Memory per row: dims·4 (Float32) + align16(dims) (int8) + 8 (norm) + 8 (key) + 4·attrs + 5 bytes.
 */
export class QuantisedIndex {
  readonly dims: number;
  private readonly stride: number;
  private readonly nAttrs: number;
  private cap = 0;
  private rows = 0;
  private free: number[] = [];
  private readonly rowOf = new Map<number, number>();
  private keys = new Float64Array(0);
  private live = new Uint8Array(0);
  private norms = new Float64Array(0);
  private floats = new Float32Array(0);
  private attrs: Int32Array[] = [];
  private k: Kernel | null = null;
  private vecOff = 0;
  private scaleOff = 0;
  private maskOff = 0;
  private outOff = 0;

  /** @param dims vector length; @param attrs number of integer attribute columns (filter codes) */
  constructor(dims: number, attrs: number) {
    if (!Number.isInteger(dims) || dims < 1) throw new Error(`invalid vector length ${dims}`);
    this.dims = dims;
    this.stride = align16(dims);
    this.nAttrs = attrs;
    this.grow(64);
  }

  /** Rows held (including zero vectors, which never match). */
  get size(): number {
    return this.rowOf.size;
  }

  /**
   * Bytes held, as allocated (capacity grows by doubling): the kernel's memory (int8 rows, scales,
   * mask, scores), the Float32 rows, keys, norms, live flags, attribute columns and free-row list, and
   * `KEY_MAP_BYTES` per key for the key → row map (an estimate of a V8 Map entry).
   */
  get bytes(): number {
    let b = this.k!.memory.buffer.byteLength + this.floats.byteLength + this.keys.byteLength + this.norms.byteLength + this.live.byteLength;
    for (const a of this.attrs) b += a.byteLength;
    return b + this.free.length * 8 + this.rowOf.size * KEY_MAP_BYTES;
  }

  has(key: number): boolean {
    return this.rowOf.has(key);
  }

  /** Attribute `col` of the row with `key`, or undefined. */
  attr(key: number, col: number): number | undefined {
    const r = this.rowOf.get(key);
    return r === undefined ? undefined : this.attrs[col]![r];
  }

  /** Insert or replace the vector and attributes of `key`. @throws Error when `v` has another length */
  upsert(key: number, v: Float32Array, attrs: number[]): void {
    if (v.length !== this.dims) throw new Error(`vector has ${v.length} dimensions, index has ${this.dims}`);
    let r = this.rowOf.get(key);
    if (r === undefined) {
      r = this.free.pop() ?? this.rows++;
      if (r >= this.cap) this.grow(this.cap * 2);
      this.rowOf.set(key, r);
    }
    this.keys[r] = key;
    for (let c = 0; c < this.nAttrs; c++) this.attrs[c]![r] = attrs[c] ?? 0;
    this.floats.set(v, r * this.dims);
    let ss = 0;
    for (let d = 0; d < this.dims; d++) ss += v[d]! * v[d]!;
    const norm = Math.sqrt(ss);
    this.norms[r] = norm;
    this.live[r] = norm > 0 ? 1 : 0;
    const mem = new Int8Array(this.k!.memory.buffer, this.vecOff + r * this.stride, this.stride);
    const scales = new Float32Array(this.k!.memory.buffer, this.scaleOff, this.cap);
    scales[r] = norm > 0 ? quantise(v, norm, mem) : 0;
  }

  /** Remove `key` (no-op when absent). */
  remove(key: number): void {
    const r = this.rowOf.get(key);
    if (r === undefined) return;
    this.rowOf.delete(key);
    this.live[r] = 0;
    this.free.push(r);
  }

  /**
   * The `k` admitted rows nearest to `q` by cosine, nearest first, each at least `minSimilarity`
   * (ties by key, ascending). A zero query has no neighbours.
   */
  search(q: Float32Array, k: number, filter: ScanFilter = {}, minSimilarity = -Infinity): ScanHit[] {
    if (q.length !== this.dims) throw new Error(`query has ${q.length} dimensions, index has ${this.dims}`);
    let qq = 0;
    for (let d = 0; d < this.dims; d++) qq += q[d]! * q[d]!;
    if (qq === 0 || k <= 0) return [];
    const kern = this.k!;
    const buf = kern.memory.buffer;
    const mask = new Uint8Array(buf, this.maskOff, this.rows);
    const admitted = this.fillMask(mask, filter);
    if (admitted === 0) return [];
    const budget = rerankBudget(k);
    let candidates: number[];
    if (admitted <= budget) {
      candidates = [];
      for (let r = 0; r < this.rows; r++) if (mask[r]) candidates.push(r);
    } else {
      const qScale = quantise(q, Math.sqrt(qq), new Int8Array(buf, 0, this.stride));
      kern.scan(this.vecOff, this.rows, this.stride, 0, this.scaleOff, this.maskOff, this.outOff);
      candidates = topRows(new Float32Array(buf, this.outOff, this.rows), qScale, budget);
    }
    const qNorm = Math.sqrt(qq);
    const hits: ScanHit[] = [];
    const floats = this.floats,
      norms = this.norms,
      keys = this.keys,
      dims = this.dims;
    // the query in double precision once, so the inner loop multiplies doubles only
    const qd = Float64Array.from(q);
    for (let i = 0; i < candidates.length; i++) {
      const r = candidates[i]!;
      const o = r * dims;
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += floats[o + d]! * qd[d]!;
      // cosine as sqlite-vec reports it (1 − cosine distance), in double precision
      const similarity = Math.max(-1, Math.min(1, dot / (norms[r]! * qNorm)));
      if (similarity >= minSimilarity) hits.push({ key: keys[r]!, similarity });
    }
    hits.sort((x, y) => y.similarity - x.similarity || x.key - y.key);
    return hits.length > k ? hits.slice(0, k) : hits;
  }

  /** Mark admitted rows in `mask`. @returns how many */
  private fillMask(mask: Uint8Array, filter: ScanFilter): number {
    const maxKey0 = filter.maxKey ?? Infinity;
    if (!filter.attrs?.length && filter.keys === undefined && filter.excludeKey === undefined) {
      // the common case (no filter but the snapshot bound): one tight loop
      let n = 0;
      const live = this.live,
        keys = this.keys,
        rows = this.rows;
      for (let r = 0; r < rows; r++) {
        const ok = live[r] === 1 && keys[r]! <= maxKey0 ? 1 : 0;
        mask[r] = ok;
        n += ok;
      }
      return n;
    }
    // one tight pass per condition over typed arrays (a row failing one is skipped by the next)
    const live = this.live,
      keyOf = this.keys,
      rows = this.rows;
    const maxKey = filter.maxKey ?? Infinity;
    // keys are positive integers: -1 excludes nothing
    const exclude = filter.excludeKey ?? -1;
    for (let r = 0; r < rows; r++) {
      const key = keyOf[r]!;
      mask[r] = live[r] === 1 && key <= maxKey && key !== exclude ? 1 : 0;
    }
    for (const c of filter.attrs ?? []) {
      const col = this.attrs[c.col]!;
      if (c.values.length === 1) {
        const v = c.values[0]!;
        for (let r = 0; r < rows; r++) if (col[r] !== v) mask[r] = 0;
      } else {
        const allowed = new Set(c.values);
        for (let r = 0; r < rows; r++) if (mask[r] === 1 && !allowed.has(col[r]!)) mask[r] = 0;
      }
    }
    const keys = filter.keys;
    if (keys !== undefined) for (let r = 0; r < rows; r++) if (mask[r] === 1 && !keys.has(keyOf[r]!)) mask[r] = 0;
    let n = 0;
    for (let r = 0; r < rows; r++) n += mask[r]!;
    return n;
  }

  /** Grow to `cap` rows: a new kernel instance whose memory holds query, vectors, scales, mask, scores. */
  private grow(cap: number): void {
    const vecOff = align16(this.stride);
    const scaleOff = vecOff + cap * this.stride;
    const maskOff = scaleOff + cap * 4;
    const outOff = align16(maskOff + cap);
    const bytes = outOff + cap * 4;
    const inst = new WebAssembly.Instance(kernel());
    const exp = inst.exports as unknown as Kernel;
    const pages = Math.ceil(bytes / PAGE);
    const have = exp.memory.buffer.byteLength / PAGE;
    if (pages > have) exp.memory.grow(pages - have);
    if (this.k) {
      const from = this.k.memory.buffer;
      new Int8Array(exp.memory.buffer, vecOff, this.cap * this.stride).set(new Int8Array(from, this.vecOff, this.cap * this.stride));
      new Float32Array(exp.memory.buffer, scaleOff, this.cap).set(new Float32Array(from, this.scaleOff, this.cap));
    }
    const copy = <T extends Float64Array | Float32Array | Uint8Array | Int32Array>(old: T, make: (n: number) => T, n: number): T => {
      const x = make(n);
      x.set(old);
      return x;
    };
    this.keys = copy(this.keys, (n) => new Float64Array(n), cap);
    this.live = copy(this.live, (n) => new Uint8Array(n), cap);
    this.norms = copy(this.norms, (n) => new Float64Array(n), cap);
    this.floats = copy(this.floats, (n) => new Float32Array(n), cap * this.dims);
    this.attrs = Array.from({ length: this.nAttrs }, (_, c) => copy(this.attrs[c] ?? new Int32Array(0), (n) => new Int32Array(n), cap));
    Object.assign(this, { k: exp, cap, vecOff, scaleOff, maskOff, outOff });
  }
}

/**
 * Quantise `v` (norm `norm` > 0) into `out` (int8, zero-padded): u = v / norm, q = round(u · s) with
 * s = 127 / max|u|. @returns 1 / s, the factor that turns an int8 dot with a unit query back into cosine units
 */
function quantise(v: Float32Array, norm: number, out: Int8Array): number {
  let m = 0;
  for (let d = 0; d < v.length; d++) m = Math.max(m, Math.abs(v[d]! / norm));
  const s = 127 / m;
  out.fill(0);
  for (let d = 0; d < v.length; d++) out[d] = Math.round((v[d]! / norm) * s);
  return 1 / s;
}

/**
 * Rows with the highest scores, at least `budget` of them (whole histogram bins: a bin cut in two
 * would drop rows tied with kept ones). Scores are cosine × `qScale`; -inf marks rows not admitted.
 */
function topRows(scores: Float32Array, qScale: number, budget: number): number[] {
  const hist = new Uint32Array(BINS);
  // bin = floor((score · qScale − LO) / BIN_WIDTH), clamped to [1, BINS − 1]; -inf (not admitted) skipped
  const a = qScale / BIN_WIDTH,
    b = -LO / BIN_WIDTH;
  for (let r = 0; r < scores.length; r++) {
    const s = scores[r]!;
    if (s === -Infinity) continue;
    const x = s * a + b;
    hist[x < 1 ? 1 : x >= BINS - 1 ? BINS - 1 : x | 0]!++;
  }
  let cut = BINS - 1;
  for (let n = 0; cut > 1; cut--) {
    n += hist[cut]!;
    if (n >= budget) break;
  }
  const out: number[] = [];
  if (cut <= 1) {
    for (let r = 0; r < scores.length; r++) if (scores[r]! !== -Infinity) out.push(r);
    return out;
  }
  // the same bin test, without recomputing bins: x ≥ cut ⇔ floor(x) ≥ cut
  for (let r = 0; r < scores.length; r++) if (scores[r]! * a + b >= cut) out.push(r);
  return out;
}
