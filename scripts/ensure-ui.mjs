#!/usr/bin/env node
// `npm start` runs this first: build the MCP Apps panels (scripts/build-ui.mjs) when dist/ui is missing a
// panel or is older than the sources under ui/ and shared/, so a fresh clone serves its panels.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const newest = (dir) => {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
};
const panels = fs
  .readdirSync(path.join(root, 'ui'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && fs.existsSync(path.join(root, 'ui', d.name, 'index.html')))
  .map((d) => d.name);
const built = panels.map((p) => path.join(root, 'dist', 'ui', `${p}.html`));
const sourcesAt = Math.max(newest(path.join(root, 'ui')), newest(path.join(root, 'shared')));
const stale = built.some((f) => !fs.existsSync(f) || fs.statSync(f).mtimeMs < sourcesAt);
if (stale && !fs.existsSync(path.join(root, 'node_modules', 'vite', 'bin', 'vite.js'))) {
  process.stderr.write(
    'atelier: running from a checkout needs the dev dependencies (npm ci, not npm ci --omit=dev) to build the panels; to run without them, install the package built by npm pack (see README)\n',
  );
  process.exit(2);
}
if (stale) {
  process.stderr.write('Building the MCP Apps panels (first start or changed sources)…\n');
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-ui.mjs')], { stdio: ['ignore', 2, 2] });
  process.exit(r.status ?? 1);
}
