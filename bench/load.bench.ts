/**
 * Load run (issue 15): a bounded loopback MCP client, 50 sessions over Streamable HTTP against the real
 * server (demo tenant seeded through the import path: 22 photos and the demo catalog; enrichment on,
 * OCR on as in production). The clients run in a separate process (bench/load-client.ts), so their own
 * work does not run on the server's event loop. 45 sessions browse (asset search 50 %, list_products
 * 30 %, view 20 %, 30 calls each, back to back); 5 sessions import demo JPEGs (each made unique by a
 * JPEG COM segment, so none is a deduplicated hit; the 6000×4000 one among them) until the browsers
 * are done. An import refused as `busy` waits `details.retry_after_ms` and retries; refusals are
 * counted apart from errors. Prints per action p50/p95, search p95 while at least one import was in
 * flight (the number issue 15 targets at ≤ 250 ms), errors and the load average. The peer in the same
 * run is the same search sequence on the idle server (one session), so the ratio is how much the
 * imports and the other sessions slow search down.
 */
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestServer } from '../e2e/mcp/harness.ts';
import { seedDemo } from '../server/seed.ts';
import type { LoadPlan, LoadResult } from './load-client.ts';
import { percentile, table } from './stats.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

export default async function loadBench(): Promise<void> {
  const srv = await startTestServer({ env: { ATELIER_OCR: '1' } });
  try {
    const bundle = await seedDemo(srv.app);
    const apiKey = bundle.api_key;
    if (!apiKey) throw new Error('seed-demo created no API key on a fresh data dir');
    const http = await srv.listen();
    const scope = { tenantId: bundle.tenant_id, workspaceId: bundle.workspace_id };
    const assets = srv.app.library.assets;
    const rowsOf = () =>
      assets.bySeqs(
        scope,
        Array.from({ length: assets.maxSeq(scope) }, (_, i) => i + 1),
      );
    // wait for the seed's enrichment (embeddings, OCR) so search has its full index
    for (const until = Date.now() + 600_000; ;) {
      const rows = rowsOf();
      if (rows.every((a) => a.enrichment_status !== 'pending' && a.enrichment_status !== 'running')) break;
      if (Date.now() > until) throw new Error('seed enrichment did not finish');
      await new Promise((res) => setTimeout(res, 500));
    }
    const plan: LoadPlan = {
      mcpUrl: http.mcpUrl,
      apiKey,
      themeId: bundle.theme_id,
      assetIds: rowsOf().map((a) => a.id),
      browsers: 45,
      importers: 5,
      callsPerBrowser: 30,
    };
    const loads: number[] = [os.loadavg()[0]!];
    const timer = setInterval(() => loads.push(os.loadavg()[0]!), 5000);
    const { stdout } = await run(
      path.join(here, '..', 'node_modules', '.bin', 'tsx'),
      [path.join(here, 'load-client.ts'), JSON.stringify(plan)],
      { maxBuffer: 64 << 20 },
    );
    clearInterval(timer);
    loads.push(os.loadavg()[0]!);
    const r = JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;

    const rows: (string | number)[][] = [];
    const row = (label: string, xs: number[]): void =>
      void rows.push([label, xs.length, percentile(xs, 50).toFixed(0), percentile(xs, 95).toFixed(0)]);
    for (const a of ['search', 'list_products', 'view', 'import'])
      row(
        a,
        r.samples.filter((s) => s.action === a).map((s) => s.ms),
      );
    const searchWhileImporting = r.samples.filter((s) => s.action === 'search' && s.importsInFlight > 0).map((s) => s.ms);
    row('search while ≥ 1 import in flight', searchWhileImporting);
    const browseSearch = r.browseOnly.filter((s) => s.action === 'search').map((s) => s.ms);
    row('search, same 45 sessions without imports (peer)', browseSearch);
    row('search, idle server (1 session)', r.idleSearchMs);
    table(['action', 'calls', 'p50 ms', 'p95 ms'], rows);
    const p95 = percentile(searchWhileImporting, 95);
    process.stdout.write(
      `search p95 while importing ${p95.toFixed(0)} ms = ${(p95 / percentile(browseSearch, 95)).toFixed(2)}× the same sessions without imports, ${(p95 / percentile(r.idleSearchMs, 95)).toFixed(1)}× the idle p95 (target ≤ 250 ms); ${r.samples.length} calls in ${r.wallS.toFixed(1)} s (${(r.samples.length / r.wallS).toFixed(0)} calls/s); ${r.imported} imports done, ${r.busy} busy refusals (retried), ${r.errors.length} errors${r.errors.length ? `: ${r.errors.slice(0, 3).join(' | ')}` : ''}\n`,
    );
    process.stdout.write(
      `(${plan.browsers} browsing + ${plan.importers} importing Streamable HTTP sessions from a separate client process on loopback; enrichment and OCR on; load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} during the run)\n`,
    );
  } finally {
    await srv.close();
  }
}
