import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding Atelier's `package.json`: the checkout root when running from source
 * (`server/…` through tsx), the unpacked package (or `node_modules/atelier`) when running the compiled
 * `dist/server/…`. Files that ship beside the code (demo data, built panels, word vectors) are found
 * from here, so the same code works at both depths.
 * @throws Error when no `package.json` is found above this module (a broken install)
 */
function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}: Atelier's install is incomplete`);
  }
}

/** Absolute path of the package root (see `findPackageRoot`). */
export const PACKAGE_ROOT = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

/** Absolute path of `segments` under the package root, e.g. `packagePath('demo', 'images')`. */
export function packagePath(...segments: string[]): string {
  return path.join(PACKAGE_ROOT, ...segments);
}

/** Atelier's version, as its `package.json` states it (MCP `serverInfo.version`, `atelier --version`). */
export const PACKAGE_VERSION: string = (JSON.parse(fs.readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
