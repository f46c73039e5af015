/**
 * A new user's first minute (issue 33 item 1): `atelier start` on a fresh data dir, from the banner "Atelier is
 * running" until every demo photo is enriched (none `pending` or `running`, read from the SQLite database every
 * 250 ms), with OCR on (the default) and, as the peer, with OCR off (`ATELIER_OCR=0`). Reports per run the
 * seconds after "running" and the CPU seconds of the server process (user + system, from /proc, Linux), then the
 * medians and the OCR-on / OCR-off ratio. The server is the compiled one (`dist/server/cli/index.js`, as `npm start`
 * runs it; `npm run build` first).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT } from '../e2e/mcp/harness.ts';
import { DEMO_IMAGES_DIR, listImageFiles } from '../server/seed.ts';
import { cpuSeconds, percentile, table } from './stats.ts';

const CLI = path.join(REPO_ROOT, 'dist', 'server', 'cli', 'index.js');
const RUNS = 2;
/** Longest a run may take before the bench gives up on it, ms. */
const LIMIT_MS = 180_000;

/** Whether every one of `expected` assets is stored and none is waiting for or in enrichment. */
function enriched(dbFile: string, expected: number): boolean {
  if (!fs.existsSync(dbFile)) return false;
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const r = db.prepare("SELECT count(*) AS n, sum(enrichment_status IN ('pending', 'running')) AS busy FROM assets").get() as {
      n: number;
      busy: number | null;
    };
    return r.n >= expected && (r.busy ?? 0) === 0;
  } catch {
    return false; // the schema is not there yet, or the database is busy: ask again
  } finally {
    db.close();
  }
}

/** One first start. @returns seconds from "running" until all photos are enriched, and the server's CPU seconds by then */
async function firstStart(ocr: boolean, photos: number): Promise<{ s: number; cpu: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-first-'));
  const child = spawn(process.execPath, [CLI, 'start'], {
    env: { ...process.env, ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0', ATELIER_OCR: ocr ? '1' : '0', ATELIER_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let output = '';
    const running = new Promise<number>((resolve, reject) => {
      const seen = (d: Buffer) => {
        output += d.toString();
        if (output.includes('Atelier is running')) resolve(performance.now());
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      child.on('exit', (code) => reject(new Error(`atelier start exited with ${code}:\n${output}`)));
    });
    const t0 = await running;
    const dbFile = path.join(dataDir, 'atelier.db');
    while (!enriched(dbFile, photos)) {
      if (performance.now() - t0 > LIMIT_MS) throw new Error(`not enriched within ${LIMIT_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 250));
    }
    return { s: (performance.now() - t0) / 1000, cpu: cpuSeconds(child.pid!) };
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export default async function firstStartBench(): Promise<void> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} does not exist: run npm run build first`);
  const photos = listImageFiles(DEMO_IMAGES_DIR).length;
  const rows: (string | number)[][] = [];
  const medians = new Map<string, number>();
  for (const ocr of [true, false]) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await firstStart(ocr, photos));
    const label = ocr ? 'OCR on (default)' : 'OCR off';
    medians.set(
      label,
      percentile(
        runs.map((r) => r.s),
        50,
      ),
    );
    for (const r of runs) rows.push([label, r.s.toFixed(1), r.cpu.toFixed(1)]);
  }
  process.stdout.write(`${photos} demo photos, ${os.cpus().length} CPUs\n`);
  table(['run', 's after "running" until all enriched', 'server CPU s'], rows);
  const on = medians.get('OCR on (default)')!;
  const off = medians.get('OCR off')!;
  table(['median, OCR on', 'median, OCR off', 'ratio on / off'], [[on.toFixed(1), off.toFixed(1), `${(on / off).toFixed(2)}×`]]);
}
