/**
 * Load run (issue 15): a bounded loopback MCP client, 50 sessions over Streamable HTTP against the real
 * server (demo tenant seeded through the import path: 22 photos and the demo catalog; enrichment on,
 * OCR on as in production). The clients run in a separate process (bench/load-client.ts), so their own
 * work does not run on the server's event loop. 45 sessions browse (asset search 50 %, list_products
 * 30 %, view 20 %, 80 calls each, back to back: with 30, the phase with imports ended before most of
 * the imports it started, so it measured their first seconds only); 5 sessions import demo JPEGs (each
 * made unique by a JPEG COM segment, so none is a deduplicated hit; the 6000×4000 one among them) until
 * the browsers are done. An import refused as `busy` waits `details.retry_after_ms` and retries;
 * refusals are counted apart from errors. Prints per action p50/p95, search p95 while at least one import was in
 * flight (the number issue 15 targets at ≤ 250 ms), errors and the load average. The peer in the same
 * run is the same search sequence on the idle server (one session), so the ratio is how much the
 * imports and the other sessions slow search down. A capacity table follows: per phase, browsing calls/s,
 * the mean call against sessions ÷ calls/s (Little's law), and the cores the server and the client used.
 * `ATELIER_LOAD_TEMPLATE=<dir>` reuses one seeded data dir across runs (bench/load-server.ts) instead of
 * seeding with OCR every time.
 */
import os from 'node:os';
import type { LoadPlan, LoadResult } from './load-client.ts';
import { runLoadClient, startLoadServer } from './load-server.ts';
import { percentile, table } from './stats.ts';

export default async function loadBench(): Promise<void> {
  const { srv, base } = await startLoadServer({}, process.env.ATELIER_LOAD_TEMPLATE);
  try {
    const plan: LoadPlan = { ...base, browsers: 45, importers: 5, callsPerBrowser: 80 };
    const loads: number[] = [os.loadavg()[0]!];
    const timer = setInterval(() => loads.push(os.loadavg()[0]!), 5000);
    const cpu0 = process.cpuUsage();
    // this (the server's) process's CPU time, sampled with the wall clock, to be split by the client's phases
    const cpuAt: [number, number][] = [];
    const sample = (): void => {
      const c = process.cpuUsage(cpu0);
      cpuAt.push([Date.now(), (c.user + c.system) / 1000]);
    };
    sample();
    const sampler = setInterval(sample, 100);
    const r = await runLoadClient(plan);
    clearInterval(sampler);
    sample();
    const cpu = process.cpuUsage(cpu0);
    clearInterval(timer);
    loads.push(os.loadavg()[0]!);

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
    const calls = r.samples.length + r.browseOnly.length + r.idleSearchMs.length;
    process.stdout.write(
      `search p95 while importing ${p95.toFixed(0)} ms = ${(p95 / percentile(browseSearch, 95)).toFixed(2)}× the same sessions without imports, ${(p95 / percentile(r.idleSearchMs, 95)).toFixed(1)}× the idle p95 (target ≤ 250 ms); ${r.samples.length} calls in ${r.wallS.toFixed(1)} s (until the last import ended); ${r.imported} imports done, ${r.busy} busy refusals (retried), ${r.errors.length} errors${r.errors.length ? `: ${r.errors.slice(0, 3).join(' | ')}` : ''}\n`,
    );
    process.stdout.write(
      `CPU per call over every phase: server process (main thread, libuv and sharp threads) ${((cpu.user + cpu.system) / 1000 / calls).toFixed(2)} ms, client process ${(r.clientCpuMs / calls).toFixed(2)} ms\n` +
        `(${plan.browsers} browsing + ${plan.importers} importing Streamable HTTP sessions from a separate client process on loopback; enrichment and OCR on; load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} during the run)\n`,
    );
    capacity(r, cpuAt, plan.browsers);
  } finally {
    await srv.close();
  }
}

/**
 * Where the browsing calls' time goes, per loaded phase: throughput, mean call, and the cores the server and
 * the client used. With sessions calling back to back, the mean call equals sessions ÷ throughput (Little's
 * law, L = λW); once the two processes use both cores, throughput is cores ÷ CPU per call and every call's
 * wait follows from it, whatever its own work.
 */
function capacity(r: LoadResult, cpuAt: [number, number][], sessions: number): void {
  /** the server's CPU ms at wall time `t`, interpolated between its 100 ms samples */
  const serverCpu = (t: number): number => {
    const i = cpuAt.findIndex(([at]) => at >= t);
    if (i <= 0) return i === 0 ? cpuAt[0]![1] : cpuAt[cpuAt.length - 1]![1];
    const [t0, c0] = cpuAt[i - 1]!;
    const [t1, c1] = cpuAt[i]!;
    return c0 + ((c1 - c0) * (t - t0)) / Math.max(1, t1 - t0);
  };
  const rows = r.phases.map((p) => {
    const wallMs = p.endMs - p.startMs;
    const calls = (p.name === 'browse-only' ? r.browseOnly : r.samples.filter((s) => s.action !== 'import')).map((s) => s.ms);
    const perS = (calls.length * 1000) / wallMs;
    const server = (serverCpu(p.endMs) - serverCpu(p.startMs)) / wallMs;
    const client = p.clientCpuMs / wallMs;
    return [
      p.name === 'browse-only' ? 'browsing alone' : 'browsing while importing',
      perS.toFixed(0),
      (calls.reduce((a, b) => a + b, 0) / calls.length).toFixed(0),
      ((sessions * 1000) / perS).toFixed(0),
      server.toFixed(2),
      client.toFixed(2),
      `${(server + client).toFixed(2)} of ${os.availableParallelism()}`,
    ];
  });
  process.stdout.write(`\nCapacity: ${sessions} sessions calling back to back, so the mean call is sessions ÷ calls/s (Little's law)\n\n`);
  table(['phase', 'browsing calls/s', 'mean call ms', `${sessions} ÷ calls/s, ms`, 'server cores', 'client cores', 'cores busy'], rows);
}
