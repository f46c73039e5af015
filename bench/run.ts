/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or those named on the command line) in order. A name
 * selects `<name>.bench.ts` when that file exists, else every bench whose file name contains it.
 * Each module default-exports `async (): Promise<void>` and prints its own table to stdout.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const all = fs.readdirSync(dir).filter((f) => f.endsWith('.bench.ts'));
const selects = (o: string, f: string): boolean => (all.includes(`${o}.bench.ts`) ? f === `${o}.bench.ts` : f.includes(o));
const files = all.filter((f) => only.length === 0 || only.some((o) => selects(o, f))).sort();
for (const f of files) {
  process.stdout.write(`\n## ${f}\n`);
  const mod = (await import(path.join(dir, f))) as { default: () => Promise<void> };
  const t0 = performance.now();
  await mod.default();
  process.stdout.write(`(${f} took ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
}
