/**
 * Fair shares between tenants (issue 36 finding 5): a quiet tenant's search p95 alone and while a noisy
 * tenant's key floods the server with searches (8 sessions, as fast as they go), as a ratio in one run;
 * target ≤ 1.5×. Once with the README's default rate limits, once with limits off (the harness's) for
 * contrast. Server: the real application in this process (HTTP on loopback, enrichment off, 4 demo photos
 * per tenant); both clients are child processes (bench/fairness-client.ts), so their work does not run on
 * the server's event loop (on one machine they still share its cores with the server). With limits the loaded phase starts at the noisy
 * key's first refusal, past its allowed burst, and is short enough to end inside that window: what is
 * measured is a noisy key being refused (the "done when"); without limits it starts after RAMP_MS.
 * The second row times only refusals: the noisy key's cheap budget is spent before its flood, and its
 * request limit is out of reach, so each of its searches is answered rate_limited (by the HTTP layer once
 * its key is known refused, server/mcp/http.ts `refuseKnownLimited`) and none gets HTTP 429.
 */
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { demoFile, startTestServer, type TestClient, type TestServer } from '../e2e/mcp/harness.ts';
import { authenticate, createTenant } from '../server/tenancy/admin.ts';
import type { FairnessPlan, NoisyCounts } from './fairness-client.ts';
import { percentile, table } from './stats.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const TSX = path.join(here, '..', 'node_modules', '.bin', 'tsx');
const CLIENT = path.join(here, 'fairness-client.ts');
const run = promisify(execFile);
/** without limits (no refusal to wait for): how long the flood runs before the quiet tenant is timed, ms */
const RAMP_MS = 4000;
const QUIET_CALLS = 100;
const PHOTOS = [
  'images/nature/silver_fir.jpg',
  'images/nature/prairie_falcon.jpg',
  'images/text/craft-beer.jpg',
  'images/text/book-beside-flowers.jpg',
];
const DEFAULT_LIMITS = {
  ATELIER_RATE_CHEAP_PER_KEY: '600',
  ATELIER_RATE_CHEAP_PER_TENANT: '1200',
  ATELIER_RATE_COSTLY_PER_KEY: '60',
  ATELIER_RATE_COSTLY_PER_TENANT: '120',
  ATELIER_RATE_REQUESTS_PER_KEY: '1200',
};

async function seed(c: TestClient): Promise<void> {
  for (const f of PHOTOS) {
    const r = await c.call('svc_asset_import', 'import', {
      data: demoFile(f).toString('base64'),
      mime_type: 'image/jpeg',
      filename: path.basename(f),
    });
    if (r.error) throw new Error(`seed import of ${f} failed: ${r.error.code} ${r.error.message}`);
  }
}

async function quietRun(plan: FairnessPlan): Promise<number[]> {
  const { stdout } = await run(TSX, [CLIENT, JSON.stringify(plan)], { maxBuffer: 16 << 20 });
  return (JSON.parse(stdout.trim().split('\n').pop()!) as { ms: number[] }).ms;
}

/**
 * Start the noisy client; `refused` resolves at its first refusal (never without limits), `stop()` closes
 * its stdin and resolves with its counts.
 */
function noisyRun(plan: FairnessPlan): { refused: Promise<void>; stop(): Promise<NoisyCounts> } {
  const child = spawn(TSX, [CLIENT, JSON.stringify(plan)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let onRefused: () => void = () => undefined;
  const refused = new Promise<void>((r) => (onRefused = r));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('refused\n')) onRefused();
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`noisy client exited with ${code}`))));
  });
  return {
    refused,
    async stop() {
      child.stdin.end();
      await exited;
      return JSON.parse(out.trim().split('\n').pop()!) as NoisyCounts;
    },
  };
}

/**
 * One server: quiet p95 alone, then with the flood. With `spent` the noisy key's cheap budget is used up
 * before the flood starts (through the server's own limiter), so every search it sends while the quiet
 * tenant is timed is refused with rate_limited (the request limit is raised out of the way).
 * @returns the table row
 */
async function measure(label: string, env: Record<string, string>, limited: boolean, spent = false): Promise<(string | number)[]> {
  const srv: TestServer = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ...env } });
  try {
    const noisyTenant = await createTenant(srv.app.library.tenancy, 'Noisy tenant');
    if (spent) {
      const p = (await authenticate(srv.app.library.tenancy, noisyTenant.api_key))!;
      for (let i = 0; i < Number(env.ATELIER_RATE_CHEAP_PER_KEY); i++) await srv.app.rateLimits.consume(p, 'svc_asset_library', 'search');
    }
    await seed(await srv.connect());
    await seed(await srv.connect(noisyTenant.api_key));
    const http = await srv.listen();
    const quiet: FairnessPlan = {
      role: 'quiet',
      mcpUrl: http.mcpUrl,
      apiKey: srv.tenant.api_key,
      themeId: srv.tenant.theme_id,
      calls: QUIET_CALLS,
    };
    await quietRun({ ...quiet, calls: 20 }); // warm-up: first searches load indexes
    const alone = await quietRun(quiet);
    const flood = noisyRun({ role: 'noisy', mcpUrl: http.mcpUrl, apiKey: noisyTenant.api_key, themeId: noisyTenant.theme_id, workers: 8 });
    const t0 = performance.now();
    // with limits: time the quiet tenant once the noisy key is being refused (its allowed burst spent)
    await (limited ? flood.refused : new Promise((r) => setTimeout(r, RAMP_MS)));
    const rampS = (performance.now() - t0) / 1000;
    const loaded = await quietRun(quiet);
    const n = await flood.stop();
    const p95a = percentile(alone, 95);
    const p95l = percentile(loaded, 95);
    const total = n.ok + n.rateLimited + n.http429 + n.other;
    return [
      label,
      p95a.toFixed(1),
      p95l.toFixed(1),
      `${(p95l / p95a).toFixed(2)}×`,
      rampS.toFixed(1),
      (total / n.wallS).toFixed(0),
      n.ok,
      n.rateLimited,
      n.http429,
      n.other,
    ];
  } finally {
    await srv.close();
  }
}

export default async function fairnessBench(): Promise<void> {
  const rows = [
    await measure('limits: README defaults', DEFAULT_LIMITS, true),
    await measure(
      'limits: defaults, noisy key refused throughout',
      { ...DEFAULT_LIMITS, ATELIER_RATE_REQUESTS_PER_KEY: '1000000' },
      true,
      true,
    ),
    await measure('limits: off', {}, false),
  ];
  table(
    [
      'server',
      'quiet p95 alone ms',
      'quiet p95 with noisy ms',
      'ratio (target ≤ 1.5×)',
      'flood before timing s',
      'noisy req/s',
      'noisy ok',
      'rate_limited',
      'HTTP 429',
      'other',
    ],
    rows,
  );
}
