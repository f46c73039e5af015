/**
 * Global setup of the package tests (e2e/package/vitest.config.ts): one `npm pack` for the run, shared by the
 * install test and the bundle test through ATELIER_PACKAGE_PACK_REPORT (the file holding `npm pack --json`'s
 * report, with the tarball beside it). When the caller packed already (scripts/test-all.mjs sets the variable),
 * nothing is packed here: a second prepack would rebuild the dist/ui panels Playwright is serving beside it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env.ATELIER_PACKAGE_PACK_REPORT) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pack-once-'));
  // packed as a user would: no npm_* state of an enclosing `npm run`, no ATELIER_* settings, no test-runner NODE_ENV
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(ATELIER_|npm_|VITEST)/.test(k) && k !== 'NODE_ENV' && k !== 'NODE_OPTIONS'),
  );
  const t0 = Date.now();
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 });
  const report = path.join(dir, 'pack.json');
  fs.writeFileSync(report, stdout);
  process.stderr.write(`package tests: npm pack once for the run in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  process.env.ATELIER_PACKAGE_PACK_REPORT = report;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}
