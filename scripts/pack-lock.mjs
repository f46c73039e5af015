#!/usr/bin/env node
// `prepack` / `postpack`: the package carries the checkout's lockfile as npm-shrinkwrap.json (npm pack never
// ships package-lock.json), so that an installation of it — `npm ci --omit=dev` in the unpacked package (README
// "Install from the package", the Dockerfile, scripts/bundle.mjs) — gets exactly the dependency versions the
// suite ran on, not whatever the registry offers within each range at install time. (`npm install <tarball>`
// ignores a tarball's shrinkwrap: npm honours one only in packages that come from a registry.)
// `node scripts/pack-lock.mjs write` copies package-lock.json to npm-shrinkwrap.json; `remove` deletes the copy,
// which would otherwise take the lockfile's place in the checkout (npm prefers npm-shrinkwrap.json).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const copy = path.join(root, 'npm-shrinkwrap.json');
const verb = process.argv[2];
if (verb === 'write') fs.copyFileSync(path.join(root, 'package-lock.json'), copy);
else if (verb === 'remove') fs.rmSync(copy, { force: true });
else {
  process.stderr.write('usage: node scripts/pack-lock.mjs write|remove\n');
  process.exit(2);
}
