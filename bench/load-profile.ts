/**
 * CPU profile of the server process during a load-client run (issue 15: where a tool call's main-thread
 * time goes). Starts the load server (bench/load-server.ts), then records a V8 CPU profile (node:inspector
 * `Profiler`) of this process — the server's — only while the client process runs, writes it as
 * `.cpuprofile` (open in Chrome DevTools or speedscope) and prints self and inclusive time grouped by
 * package/file and by function.
 *
 * Usage: `npx tsx bench/load-profile.ts <out.cpuprofile> [browsers] [importers] [callsPerBrowser] [action]`
 * (defaults 45 5 30 and the mixed browsing calls; `action` makes every browsing call that one —
 * search, list_products, view or capabilities; e.g. `… 1 0 1500` for the cost of one call with no
 * concurrency). The test harness's logger is silent, as in the load bench: log lines cost nothing here. With
 * `ATELIER_LOAD_TEMPLATE=<dir>` the seeded demo data dir is made there once and reused (bench/load-server.ts).
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoadClient, startLoadServer } from './load-server.ts';

/** the repository root, with a trailing slash */
const REPO = `${path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')}/`;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a script URL belongs: `pkg:<npm package>`, `node:<internal>`, or the repo-relative path. */
function origin(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return url;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `pkg:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const file = url.replace(/^file:\/\//, '');
  return file.startsWith(REPO) ? file.slice(REPO.length) : file;
}

/**
 * The layer a sample's time belongs to, from its nearest frame with a script URL (native work such as
 * a SQLite statement or a socket write counts for the JavaScript that called it).
 */
function layer(url: string): string {
  const o = origin(url);
  if (/^server\/mcp\//.test(o)) return 'server/mcp (dispatch, HTTP routes)';
  if (/^(server|shared)\//.test(o)) return 'use cases (server/*, shared/*)';
  if (o === 'pkg:@modelcontextprotocol/sdk') return 'MCP SDK';
  if (o === 'pkg:zod') return 'zod';
  if (/^pkg:(@hono|express|router|body-parser|raw-body|cors|type-is|content-type|iconv-lite)/.test(o)) return 'HTTP framework';
  if (/^node:(_http|net|internal\/(streams|webstreams|stream_base|http|deps\/undici))/.test(o)) return 'node http/streams/sockets';
  if (o.startsWith('pkg:')) return `other packages`;
  if (o.startsWith('node:')) return 'node (other)';
  return 'other';
}

/**
 * Self and inclusive ms per origin and per function of a profile (inclusive counts a sample once per key
 * however deep the recursion). @returns rows sorted by the chosen measure, ms
 */
export function summarize(p: CpuProfile): {
  totalMs: number;
  byOrigin: { key: string; self: number; incl: number }[];
  byFunction: { key: string; self: number; incl: number }[];
  byLayer: { key: string; self: number; incl: number }[];
} {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const fnKey = (n: ProfileNode): string =>
    `${n.callFrame.functionName || '(anonymous)'} ${origin(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const acc = (m: Map<string, { self: number; incl: number }>, k: string) => {
    let v = m.get(k);
    if (!v) m.set(k, (v = { self: 0, incl: 0 }));
    return v;
  };
  const origins = new Map<string, { self: number; incl: number }>();
  const fns = new Map<string, { self: number; incl: number }>();
  const layers = new Map<string, { self: number; incl: number }>();
  let totalMs = 0;
  p.samples.forEach((id, i) => {
    const ms = (p.timeDeltas[i] ?? 0) / 1000;
    totalMs += ms;
    const leaf = byId.get(id)!;
    acc(origins, origin(leaf.callFrame.url)).self += ms;
    acc(fns, fnKey(leaf)).self += ms;
    const name = leaf.callFrame.functionName;
    let l = name === '(idle)' || name === '(garbage collector)' || name === '(program)' ? name : '';
    for (let n: ProfileNode | undefined = leaf; n && !l; n = byId.get(parent.get(n.id) ?? -1))
      if (n.callFrame.url) l = layer(n.callFrame.url);
    acc(layers, l || '(native, no JS caller)').self += ms;
    const seenO = new Set<string>();
    const seenF = new Set<string>();
    for (let n: ProfileNode | undefined = leaf; n; n = byId.get(parent.get(n.id) ?? -1)) {
      const o = origin(n.callFrame.url);
      const f = fnKey(n);
      if (!seenO.has(o)) {
        seenO.add(o);
        acc(origins, o).incl += ms;
      }
      if (!seenF.has(f)) {
        seenF.add(f);
        acc(fns, f).incl += ms;
      }
    }
  });
  const rows = (m: Map<string, { self: number; incl: number }>) => [...m].map(([key, v]) => ({ key, ...v }));
  return { totalMs, byOrigin: rows(origins), byFunction: rows(fns), byLayer: rows(layers) };
}

async function main(): Promise<void> {
  const [out, browsers = '45', importers = '5', calls = '30', mix] = process.argv.slice(2);
  if (!out) throw new Error('usage: tsx bench/load-profile.ts <out.cpuprofile> [browsers] [importers] [callsPerBrowser] [action]');
  const { srv, base } = await startLoadServer({}, process.env.ATELIER_LOAD_TEMPLATE);
  try {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    const load0 = os.loadavg()[0]!;
    const cpu0 = process.cpuUsage();
    await session.post('Profiler.start');
    const r = await runLoadClient({
      ...base,
      browsers: +browsers,
      importers: +importers,
      callsPerBrowser: +calls,
      ...(mix ? { mix: { [mix]: 1 } } : {}),
    });
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    const cpu = process.cpuUsage(cpu0);
    fs.writeFileSync(out, JSON.stringify(profile));
    const calls_ = r.samples.length + r.browseOnly.length + r.idleSearchMs.length;
    const s = summarize(profile);
    const top = (rows: { key: string; self: number; incl: number }[], by: 'self' | 'incl', n: number) =>
      rows
        .sort((a, b) => b[by] - a[by])
        .slice(0, n)
        .map((x) => `  ${x.self.toFixed(0).padStart(7)} ${x.incl.toFixed(0).padStart(7)}  ${x.key}`)
        .join('\n');
    process.stdout.write(
      `${calls_} calls (${r.errors.length} errors, ${r.imported} imports); server process CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms = ${((cpu.user + cpu.system) / 1000 / calls_).toFixed(2)} ms per call; profile ${s.totalMs.toFixed(0)} ms wall (idle included); load average ${load0.toFixed(2)}–${os.loadavg()[0]!.toFixed(2)}\n` +
        `self ms by layer (native work counted for its JavaScript caller):\n${top(s.byLayer, 'self', 15)}\n` +
        `self ms, inclusive ms by origin:\n${top(s.byOrigin, 'self', 25)}\n` +
        `by function, self:\n${top(s.byFunction, 'self', 40)}\n` +
        `by function, inclusive:\n${top(s.byFunction, 'incl', 60)}\n`,
    );
    session.disconnect();
  } finally {
    await srv.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
