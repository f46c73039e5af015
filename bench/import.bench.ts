/**
 * Image import throughput (issue 15 item 4): the 22 demo photos (`demo/images`: JPEG up to 6000×4000,
 * PNG, WebP, AVIF, HEIC) imported one after another through `svc_asset_import import {data}` by a
 * real MCP client (in-memory transport, the same McpServer path as HTTP; enrichment off, so the figure
 * is the import's own work), next to two bare sharp peers doing the same renditions in the same run
 * (bench/bare-renditions.ts): decoding each image once (the floor the import path should approach)
 * and one decode per rendition (the shape of the import path before issue 15).
 * Rounds are interleaved (the peers' order rotates) and each import round uses a fresh workspace, so
 * no import is a deduplicated hit. Target: import ≥ 1.5× the pre-issue-15 throughput; the ratio
 * "import / decode-per-rendition peer" tracks that in every run.
 */
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer } from '../e2e/mcp/harness.ts';
import { createTenant } from '../server/tenancy/admin.ts';
import { DEMO_IMAGES_DIR, listImageFiles } from '../server/seed.ts';
import { bareDecodeOnce, bareDecodePerRendition } from './bare-renditions.ts';
import { table } from './stats.ts';

const ROUNDS = 3;
const MIME: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.heic': 'image/heic',
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function importBench(): Promise<void> {
  const files = listImageFiles(DEMO_IMAGES_DIR).map((f) => ({ name: path.basename(f), bytes: fs.readFileSync(f) }));
  const srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
  try {
    const runs: Record<'import' | 'once' | 'per', number[]> = { import: [], once: [], per: [] };
    /** CPU time (user + system, all threads of this process) per image, ms: less sensitive than wall time to other processes on a shared machine */
    const cpu: Record<'import' | 'once' | 'per', number[]> = { import: [], once: [], per: [] };
    const loads: number[] = [];
    const importRound = async (round: number): Promise<void> => {
      const t = await createTenant(srv.app.library.tenancy, `bench ${round}`);
      const c = await srv.connect(t.api_key);
      for (const f of files) {
        const r = await c.call('svc_asset_import', 'import', {
          data: f.bytes.toString('base64'),
          mime_type: MIME[path.extname(f.name).toLowerCase()] ?? 'image/jpeg',
          filename: f.name,
        });
        if (r.isError) throw new Error(`${f.name}: ${r.text}`);
        if (r.structured.deduplicated) throw new Error(`${f.name}: deduplicated in a fresh workspace`);
      }
    };
    const peer = (fn: (b: Buffer) => Promise<number>) => async (): Promise<void> => {
      for (const f of files) await fn(f.bytes);
    };
    const legs: [keyof typeof runs, (round: number) => Promise<void>][] = [
      ['import', importRound],
      ['once', peer(bareDecodeOnce)],
      ['per', peer(bareDecodePerRendition)],
    ];
    // warm-up: one image through each leg (module loading, libvips init, prepared statements)
    await bareDecodeOnce(files[0]!.bytes);
    await bareDecodePerRendition(files[0]!.bytes);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < legs.length; i++) {
        const [name, fn] = legs[(i + round) % legs.length]!;
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        await fn(round);
        const c1 = process.cpuUsage(c0);
        runs[name].push(files.length / ((performance.now() - t0) / 1000));
        cpu[name].push((c1.user + c1.system) / 1000 / files.length);
        loads.push(os.loadavg()[0]!);
      }
    }
    const imp = median(runs.import);
    const once = median(runs.once);
    const per = median(runs.per);
    const fmt = (xs: number[], d = 2): string => xs.map((x) => x.toFixed(d)).join(' / ');
    const cpuImp = median(cpu.import);
    table(
      [
        'pipeline',
        'images/s (median)',
        'per round',
        'import ÷ this (images/s)',
        'CPU ms per image (median)',
        'per round',
        'this ÷ import (CPU)',
      ],
      [
        ['import path (svc_asset_import, data)', imp.toFixed(2), fmt(runs.import), '1.00', cpuImp.toFixed(0), fmt(cpu.import, 0), '1.00'],
        [
          'bare sharp, decode once',
          once.toFixed(2),
          fmt(runs.once),
          (imp / once).toFixed(2),
          median(cpu.once).toFixed(0),
          fmt(cpu.once, 0),
          (median(cpu.once) / cpuImp).toFixed(2),
        ],
        [
          'bare sharp, decode per rendition (pre-issue-15 shape)',
          per.toFixed(2),
          fmt(runs.per),
          (imp / per).toFixed(2),
          median(cpu.per).toFixed(0),
          fmt(cpu.per, 0),
          (median(cpu.per) / cpuImp).toFixed(2),
        ],
      ],
    );
    process.stdout.write(
      `(${files.length} demo photos, ${(files.reduce((n, f) => n + f.bytes.length, 0) / 1024 / 1024).toFixed(1)} MiB; ${ROUNDS} interleaved rounds per pipeline; enrichment off; load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} during the rounds; target import ≥ 1.5× the pre-issue-15 import)\n`,
    );
  } finally {
    await srv.close();
  }
}
