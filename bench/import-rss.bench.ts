/**
 * Peak RSS growth of one 24-megapixel import (issue 15): the 6000×4000 progressive demo JPEG
 * (`demo/images/text/craft-beer.jpg`, 1.7 MB, ICC profile) uploaded through the chunked upload channel
 * and imported by `complete`, measured in a fresh child process (bench/import-rss-child.ts) as Linux
 * peak RSS (VmHWM) over the RSS just before the upload; once until `complete` returns, once until the
 * asynchronous enrichment of the asset has finished (OCR off). Peers, also in fresh processes: bare sharp
 * decoding once and decoding per rendition (bench/bare-renditions.ts). Target: ≤ 150 MB per import.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { table } from './stats.ts';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const TSX = path.join(here, '..', 'node_modules', '.bin', 'tsx');
const RUNS = 3;

interface Measured {
  mode: string;
  import_peak_bytes: number;
  with_enrichment_peak_bytes?: number;
}

async function child(mode: string): Promise<Measured> {
  const { stdout } = await run(TSX, [path.join(here, 'import-rss-child.ts'), mode], { cwd: path.join(here, '..'), maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as Measured;
}

const mib = (b: number): string => (b / 1024 / 1024).toFixed(0);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function importRssBench(): Promise<void> {
  const by: Record<string, Measured[]> = { upload: [], once: [], per: [] };
  const loads: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const mode of Object.keys(by)) {
      by[mode]!.push(await child(mode));
      loads.push(os.loadavg()[0]!);
    }
  }
  const upload = median(by.upload!.map((m) => m.import_peak_bytes));
  const withEnrichment = median(by.upload!.map((m) => m.with_enrichment_peak_bytes ?? 0));
  const once = median(by.once!.map((m) => m.import_peak_bytes));
  const per = median(by.per!.map((m) => m.import_peak_bytes));
  const each = (mode: string, k: keyof Measured = 'import_peak_bytes'): string => by[mode]!.map((m) => mib(m[k] as number)).join(' / ');
  table(
    ['24 MP JPEG (6000×4000)', 'peak RSS growth MiB (median)', 'per run', '÷ bare decode-once'],
    [
      ['upload + import (`complete` returned)', mib(upload), each('upload'), (upload / once).toFixed(2)],
      [
        'upload + import + enrichment (OCR off)',
        mib(withEnrichment),
        each('upload', 'with_enrichment_peak_bytes'),
        (withEnrichment / once).toFixed(2),
      ],
      ['bare sharp, decode once', mib(once), each('once'), '1.00'],
      ['bare sharp, decode per rendition (pre-issue-15 shape)', mib(per), each('per'), (per / once).toFixed(2)],
    ],
  );
  process.stdout.write(
    `(fresh process per run, ${RUNS} runs each; load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}; target ≤ 150 MB per import)\n`,
  );
}
