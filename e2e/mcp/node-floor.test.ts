/**
 * The checkout's entry point on a machine whose Node is older than `engines` allows (machines ship Node 20,
 * on which better-sqlite3 13 crashes the process): `bin/atelier.mjs` runs the same command again on the
 * registry's Node 24 (scripts/modern-node.mjs), so the README's `npm ci && npm start` works there.
 * The Node 24 "install" here is a cache folder whose node is the one running this test, so no download
 * happens; the old Node is the machine's own (skipped where the machine has none older than the floor).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backendEnv, REPO_ROOT } from './harness.ts';

const floor = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node.replace(/^>=/, '');
const older = (v: string): boolean => {
  const [a, b] = [v.split('.').map(Number), floor.split('.').map(Number)];
  return a[0]! < b[0]! || (a[0] === b[0] && (a[1] ?? 0) < (b[1] ?? 0));
};
/** A Node binary on this machine older than the floor, or null. */
function oldNode(): string | null {
  const found = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  for (const bin of [...found, '/usr/bin/node', '/usr/local/bin/node']) {
    const v = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (v.status === 0 && older(v.stdout.trim())) return bin;
  }
  return null;
}

describe('the checkout on a Node older than engines allows', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-node-floor-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const old = oldNode();

  it.skipIf(old === null)('runs the command on Node 24 from the node cache and exits with its result', () => {
    const cache = path.join(tmp, 'cache');
    const pkg = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
    const bin = path.join(cache, 'node-24', 'node_modules', pkg, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    const run = spawnSync(old!, [path.join(REPO_ROOT, 'bin', 'atelier.mjs'), 'tenant', 'create', '--name', 'Floor', '--json'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        ...backendEnv(path.basename(tmp)),
        ATELIER_NODE_CACHE: cache,
        ATELIER_DATA_DIR: path.join(tmp, 'data'),
        ATELIER_LOG_LEVEL: 'error',
      },
      timeout: 120_000,
    });
    expect(run.stderr).toContain(`is older than ${floor}; running on ${path.join(bin, 'node')}`);
    expect(run.status, run.stderr).toBe(0);
    // the command ran to its end (on SQLite, better-sqlite3 13 cannot even load on the old Node)
    expect(JSON.parse(run.stdout)).toMatchObject({ tenant_id: expect.any(String) });
  });

  it('a Node the floor allows runs the command itself, without a notice', () => {
    const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'atelier.mjs'), '--help'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Usage: atelier');
    expect(run.stderr).not.toContain('older than');
  });
});
