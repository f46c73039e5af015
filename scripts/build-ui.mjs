#!/usr/bin/env node
// `npm run build`: bundle every MCP Apps panel (ui/<panel>/index.html) into one self-contained HTML file
// dist/ui/<panel>.html (one Vite build per panel, see vite.config.ts), then print each file's size.
// Fails when a build fails or a panel exceeds 1 MiB (hosts reject larger App HTML, e.g. QwenLM/qwen-code#11945).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const MAX_BYTES = 1024 * 1024;
const TARGET_BYTES = 600 * 1024;
const only = process.argv.slice(2);

const panels = fs
  .readdirSync(path.join(root, 'ui'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'lib' && fs.existsSync(path.join(root, 'ui', d.name, 'index.html')))
  .map((d) => d.name)
  .filter((p) => only.length === 0 || only.includes(p))
  .sort();
if (panels.length === 0) {
  console.error('build-ui: no panel folders with an index.html under ui/');
  process.exit(1);
}
fs.mkdirSync(path.join(root, 'dist', 'ui'), { recursive: true });
const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
// Browser code resolves like a bundler (tsconfig.ui.json); typecheck it before bundling.
const tsc = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.ui.json'],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) {
  console.error('build-ui: typecheck of ui/ failed (tsc -p tsconfig.ui.json)');
  process.exit(1);
}
let ok = true;
const rows = [];
for (const panel of panels) {
  const out = path.join(root, 'dist', 'ui', `${panel}.html`);
  fs.rmSync(out, { force: true });
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [vite, 'build', '--config', 'vite.config.ts'], {
    stdio: 'inherit',
    env: { ...process.env, INPUT: `ui/${panel}/index.html` },
  });
  if (r.status !== 0 || !fs.existsSync(out)) {
    console.error(`build-ui: ${panel} failed (exit ${r.status})`);
    ok = false;
    continue;
  }
  const bytes = fs.statSync(out).size;
  const note = bytes > MAX_BYTES ? 'OVER 1 MiB LIMIT' : bytes > TARGET_BYTES ? 'over 600 KB target' : 'ok';
  if (bytes > MAX_BYTES) ok = false;
  rows.push({ panel, file: path.relative(root, out), bytes, ms: Date.now() - t0, note });
}
console.log('\npanel bundles:');
for (const r of rows)
  console.log(
    `  ${r.file.padEnd(34)} ${String(r.bytes).padStart(9)} bytes  ${(r.bytes / 1024).toFixed(1).padStart(7)} KiB  ${String(r.ms).padStart(6)} ms  ${r.note}`,
  );
process.exit(ok ? 0 : 1);
