#!/usr/bin/env node
// `npm test`: the whole suite, as CI runs it. Steps: ensure Chromium → typecheck → lint and format check → build the panels →
// vitest (unit + MCP behaviour tests) → MCP conformance (HTTP) → Playwright panel tests → the npm package
// (pack, install with --omit=dev in an empty directory, seed-demo and MCP over stdio; last, because
// `npm pack` rebuilds dist/ and its install compiles better-sqlite3: ~3 min on 2 idle cores).
// Ends with a table of the parts' wall times (and the load average at start and end, since the machine may be
// shared) and one closing line "test-all: N passed, M failed" summing vitest and Playwright.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-test-all-'));
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const startedAt = Date.now();
const loadAtStart = os.loadavg();
/** Wall time of each part for the closing table: `part` is its short name, or null for helper steps. */
const parts = [];

function step(title, cmd, args, env = {}, part = null) {
  process.stdout.write(`\n=== ${title} ===\n`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  const s = (Date.now() - t0) / 1000;
  process.stdout.write(`=== ${title}: ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status})`} in ${s.toFixed(1)} s ===\n`);
  if (part) parts.push({ part, s, ok: r.status === 0 });
  return r.status === 0;
}

/** The closing table: one row per part, then the total wall time of this script. */
function printTimes() {
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
  const rows = [
    ...parts.map((p) => [p.part, p.s.toFixed(1), p.ok ? 'ok' : 'FAILED']),
    ['total', ((Date.now() - startedAt) / 1000).toFixed(1), ''],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  process.stdout.write(
    `\ntimes (wall, s; load average ${load(loadAtStart)} at start, ${load(os.loadavg())} at end, ${os.cpus().length} CPUs):\n`,
  );
  for (const [name, s, status] of rows) process.stdout.write(`  ${name.padEnd(w)}  ${s.padStart(7)}  ${status}\n`);
}

function ensureChromium() {
  if (fs.existsSync(CHROMIUM)) return true;
  const root_ = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root_ && fs.existsSync('/usr/bin/apt-get')) {
    process.stdout.write('Chromium is missing: installing Debian chromium (apt-get install -y chromium)…\n');
    if (
      step('apt-get update', 'apt-get', ['update', '-q']) &&
      step('apt-get install chromium', 'apt-get', ['install', '-y', '-q', 'chromium'], { DEBIAN_FRONTEND: 'noninteractive' })
    )
      return true;
  }
  process.stderr.write(
    `\nChromium not found at ${CHROMIUM}. Browser tests need it. Install it with:\n  sudo apt-get update && sudo apt-get install -y chromium\n(or set CHROMIUM_PATH to a Chromium binary), then run npm test again.\n`,
  );
  return false;
}

let passed = 0;
let failed = 0;
let ok = ensureChromium();

ok = step('typecheck (tsc --noEmit)', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json'], {}, 'typecheck') && ok;

// Lint: typescript-eslint (type-checked rules) + react-hooks, then prettier's format check (eslint.config.js, .prettierrc.json).
const lintOk =
  step('lint (eslint: typescript-eslint type-checked + react-hooks)', bin('eslint'), ['.'], {}, 'lint') &&
  step('format (prettier --check)', bin('prettier'), ['--check', '--log-level', 'warn', '.'], {}, 'format');
if (!lintOk) failed++;
ok = lintOk && ok;

// Panels are built first: the server serves them as ui:// resources (conformance resources-list, Playwright).
const hasPanels = fs.existsSync(path.join(root, 'playwright.config.ts')) && fs.existsSync(path.join(root, 'scripts', 'build-ui.mjs'));
const buildOk = hasPanels
  ? step('build panels (vite, with the UI typecheck)', process.execPath, ['scripts/build-ui.mjs'], {}, 'build')
  : true;
ok = buildOk && ok;
if (!buildOk) failed++;

/** Run vitest (with `args` selecting the config) and add its test counts; a run that fails without a failed test counts as one failure. */
function vitest(title, name, args) {
  const json = path.join(tmp, `${name}.json`);
  const vOk = step(title, bin('vitest'), ['run', ...args, '--reporter=default', '--reporter=json', `--outputFile.json=${json}`], {}, name);
  if (fs.existsSync(json)) {
    const j = JSON.parse(fs.readFileSync(json, 'utf8'));
    passed += j.numPassedTests ?? 0;
    failed += (j.numFailedTests ?? 0) + (vOk || j.numFailedTests ? 0 : 1);
  } else if (!vOk) failed++;
  return vOk;
}

ok = vitest('vitest: unit and MCP behaviour tests', 'vitest', []) && ok;

const confOk = step(
  'MCP conformance (Streamable HTTP, baseline e2e/conformance/baseline.yml)',
  bin('tsx'),
  ['e2e/conformance/run.ts'],
  {},
  'conformance',
);
if (confOk) passed++;
else failed++;
ok = confOk && ok;

if (hasPanels) {
  if (buildOk && fs.existsSync(CHROMIUM)) {
    const pwJson = path.join(tmp, 'playwright.json');
    const pwOk = step(
      'Playwright: panels in a test MCP Apps host (Chromium)',
      bin('playwright'),
      ['test', '--reporter=list,json'],
      { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson, CHROMIUM_PATH: CHROMIUM },
      'Playwright',
    );
    if (fs.existsSync(pwJson)) {
      const s = JSON.parse(fs.readFileSync(pwJson, 'utf8')).stats ?? {};
      passed += (s.expected ?? 0) + (s.flaky ?? 0);
      failed += s.unexpected ?? 0;
      if (!pwOk && !s.unexpected) failed++;
    } else if (!pwOk) failed++;
    ok = pwOk && ok;
  }
}

ok =
  vitest('package: npm pack, npm install --omit=dev, seed-demo, MCP over stdio (e2e/package)', 'package', [
    '--config',
    'e2e/package/vitest.config.ts',
  ]) && ok;

fs.rmSync(tmp, { recursive: true, force: true });
printTimes();
process.stdout.write(`\ntest-all: ${passed} passed, ${failed} failed\n`);
process.exit(ok && failed === 0 ? 0 : 1);
