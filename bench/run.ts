/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or those named on the command line) in order.
 * Each module default-exports `async (): Promise<void>` and prints its own table to stdout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (only.length === 0 || only.some((o) => f.includes(o))))
  .sort();
for (const f of files) {
  process.stdout.write(`\n## ${f}\n`);
  const mod = (await import(path.join(dir, f))) as { default: () => Promise<void> };
  const t0 = performance.now();
  await mod.default();
  process.stdout.write(`(${f} took ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
}
