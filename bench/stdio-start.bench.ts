/**
 * A stdio server's start, what a desktop host such as Claude Desktop pays for each conversation: from the spawn
 * of `atelier serve --stdio` (compiled, `npm run build` first; SQLite and local blobs, one tenant with no
 * assets) until the answer to `initialize`, and until the answer to a first search; with the server's CPU
 * seconds by then (user + system, /proc, Linux).
 *
 * Peer: the same server with the libraries it loads only on use (OAuth: oidc-provider, jose; S3: the AWS SDK;
 * PostgreSQL: pg; video: mediabunny; outbound HTTP: undici) preloaded with `--import`, which is what every start
 * loaded before they were deferred. Runs alternate between the two; reports medians and the ratio.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../e2e/mcp/harness.ts';
import { cpuSeconds, percentile, table } from './stats.ts';

const CLI = path.join(REPO_ROOT, 'dist', 'server', 'cli', 'index.js');
const RUNS = 8;
/** The packages the server imports only when configured or first used (server/mcp/http.ts, storage/configured.ts, …). */
const DEFERRED = [
  'oidc-provider',
  'jose',
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
  '@aws-sdk/s3-request-presigner',
  'pg',
  'mediabunny',
  'undici',
];

const line = (m: Record<string, unknown>): string => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`;

/** One start. @returns ms until the `initialize` answer and until the search's answer, and the CPU seconds by then */
async function start(
  dataDir: string,
  t: { apiKey: string; themeId: string },
  preload: string | null,
): Promise<{ initMs: number; searchMs: number; cpu: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(preload ? ['--import', preload] : []), CLI, 'serve', '--stdio'], {
    env: { ...process.env, ATELIER_DATA_DIR: dataDir, ATELIER_API_KEY: t.apiKey, ATELIER_PORT: '0', ATELIER_LOG_LEVEL: 'warn' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    const answered = (id: number) =>
      new Promise<number>((resolve, reject) => {
        const seen = (): void => {
          if (out.includes(`"id":${id}`)) resolve(performance.now() - t0);
        };
        child.stdout.on('data', seen);
        child.on('exit', (code) => reject(new Error(`atelier serve --stdio exited with ${code}`)));
        seen();
      });
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stdin.write(
      line({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
      }),
    );
    const initMs = await answered(1);
    child.stdin.write(line({ method: 'notifications/initialized' }));
    child.stdin.write(
      line({
        id: 2,
        method: 'tools/call',
        params: { name: 'svc_asset_library', arguments: { action: 'search', args: { theme_id: t.themeId, query: 'fir' } } },
      }),
    );
    const searchMs = await answered(2);
    if (out.includes('"isError":true')) throw new Error(`the search failed: ${out}`);
    return { initMs, searchMs, cpu: cpuSeconds(child.pid!) };
  } finally {
    child.kill('SIGKILL');
  }
}

export default async function stdioStartBench(): Promise<void> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} does not exist: run npm run build first`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bench-stdio-'));
  const preload = path.join(dataDir, 'preload.mjs');
  // resolved from here (the preload file sits in a temp dir, where no node_modules is)
  fs.writeFileSync(preload, DEFERRED.map((p) => `import '${import.meta.resolve(p)}';`).join('\n'));
  try {
    const created = spawnSync(process.execPath, [CLI, 'tenant', 'create', '--name', 'Bench', '--json'], {
      env: { ...process.env, ATELIER_DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    if (created.status !== 0) throw new Error(`tenant create failed: ${created.stderr}`);
    const made = JSON.parse(created.stdout) as { api_key: string; theme_id: string };
    const tenant = { apiKey: made.api_key, themeId: made.theme_id };
    const runs = new Map<string, { initMs: number; searchMs: number; cpu: number }[]>([
      ['deferred (as shipped)', []],
      ['all preloaded (peer)', []],
    ]);
    for (let i = 0; i < RUNS; i++) {
      runs.get('deferred (as shipped)')!.push(await start(dataDir, tenant, null));
      runs.get('all preloaded (peer)')!.push(await start(dataDir, tenant, preload));
    }
    const med = (xs: number[]) => percentile(xs, 50);
    const rows = [...runs].map(([label, rs]) => [
      label,
      med(rs.map((r) => r.initMs)).toFixed(0),
      med(rs.map((r) => r.searchMs)).toFixed(0),
      med(rs.map((r) => r.cpu)).toFixed(2),
    ]);
    process.stdout.write(`${RUNS} runs each, alternating; ${os.cpus().length} CPUs\n`);
    table(['server', 'ms to initialize answer (median)', 'ms to first search answer', 'CPU s by then'], rows);
    const [a, b] = [...runs.values()].map((rs) => med(rs.map((r) => r.searchMs)));
    table(['ratio deferred / preloaded, to first search answer'], [[`${(a! / b!).toFixed(2)}×`]]);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
