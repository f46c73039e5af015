/**
 * Build the static embedder's compact word-vector file ahead of time (CI images, Docker layers), so the
 * first server start does not spend ~7 s converting the 307 MB wink JSON. Idempotent.
 * Run: `npx tsx scripts/build-word-vectors.ts [cacheDir]` (default node_modules/.cache/atelier).
 */
import fs from 'node:fs';
import { defaultWordVectorCacheDir, ensureWordVectors, loadWordVectors } from '../server/providers/embedder-static.ts';

const dir = process.argv[2] ?? defaultWordVectorCacheDir();
const t0 = performance.now();
const file = await ensureWordVectors(dir);
const built = performance.now() - t0;
const t1 = performance.now();
const wv = loadWordVectors(file);
process.stdout.write(`${file}: ${wv.count} words × ${wv.dims} dims, ${fs.statSync(file).size} bytes; ensure ${Math.round(built)} ms, load ${Math.round(performance.now() - t1)} ms\n`);
