// The oldest Node Atelier runs on, as package.json's `engines` names it, shared by the installed package's
// entry point (bin/atelier.mjs) and the checkout's re-run on a newer Node (scripts/modern-node.mjs).
// Plain JavaScript that any Node since 18 runs, so the check itself works on the Node it refuses.
import fs from 'node:fs';

/** The `engines.node` floor as a dotted version, e.g. "22.19". */
export const NODE_FLOOR = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node.replace(/^>=/, '');

/**
 * Whether dotted version `version` ("20.20.2") is at least `floor` ("22.19"); missing parts count as 0.
 * @param {string} version
 * @param {string} [floor] default NODE_FLOOR
 * @returns {boolean}
 */
export function atLeast(version, floor = NODE_FLOOR) {
  const x = version.split('.').map(Number);
  const y = floor.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  }
  return true;
}
