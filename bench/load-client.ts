/**
 * Client process of bench/load.bench.ts: 45 browsing and 5 importing MCP sessions over Streamable HTTP
 * against the server the bench started (a separate process, so the clients' own work — SSE parsing,
 * result validation — does not run on the server's event loop). Usage:
 * `tsx bench/load-client.ts '<json LoadPlan>'`; prints one JSON line of `LoadResult` to stdout.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { createHash } from 'node:crypto';
import { demoFile } from '../e2e/mcp/harness.ts';
import { chunkCount, chunkRange } from '../shared/upload-chunks.ts';

export interface LoadPlan {
  mcpUrl: string;
  apiKey: string;
  themeId: string;
  assetIds: string[];
  browsers: number;
  importers: number;
  callsPerBrowser: number;
  /**
   * Relative weights of the browsing calls (default search 0.5, list_products 0.3, view 0.2);
   * `capabilities` (svc_assets, a use case that does nearly nothing) measures the MCP stack alone.
   */
  mix?: Partial<Record<BrowseAction, number>>;
}
type BrowseAction = 'search' | 'list_products' | 'view' | 'capabilities';
export interface LoadResult {
  /** the browsing sessions alone, no imports: the peer that isolates what the imports add */
  browseOnly: { action: string; ms: number }[];
  samples: { action: string; ms: number; importsInFlight: number }[];
  idleSearchMs: number[];
  errors: string[];
  busy: number;
  imported: number;
  wallS: number;
  /** CPU time of this client process over the whole run (user + system), ms: what it took from the shared cores */
  clientCpuMs: number;
  /**
   * The two loaded phases, for CPU accounting per phase: wall-clock bounds (epoch ms, `Date.now()`, so the
   * server process can match its own CPU samples) and this process's CPU time in each, ms
   */
  phases: { name: 'browse-only' | 'importing'; startMs: number; endMs: number; clientCpuMs: number }[];
}

const QUERIES = [
  'flowers',
  'craft beer',
  'mountain ridge',
  'rocks',
  'falcon',
  'handwritten notes',
  'japanese shop sign',
  'forest',
  'cactus',
  'portrait',
  'purple wildflowers',
  'book',
];
const PRODUCT_QUERIES = ['shirt', 'ring', 'garden chair', 'necklace', 'linen', 'blue', 'lamp', 'dress'];
const IMPORT_FILES = [
  'images/text/craft-beer.jpg',
  'images/text/japanese-shop.jpg',
  'images/nature/prairie_falcon.jpg',
  'images/metadata/portrait-orientation-6.jpg',
  'images/text/book-beside-flowers.jpg',
  'images/nature/tanners_ridge.jpg',
  'images/text/handwritten-notes.jpg',
  'images/metadata/mongolels.jpg',
];

/** The JPEG with a COM segment right after SOI holding `tag`: same pixels, different bytes. */
function uniqueJpeg(bytes: Buffer, tag: string): Buffer {
  const text = Buffer.from(`atelier load bench ${tag}`);
  const seg = Buffer.alloc(4);
  seg.writeUInt16BE(0xfffe, 0);
  seg.writeUInt16BE(text.length + 2, 2);
  return Buffer.concat([bytes.subarray(0, 2), seg, text, bytes.subarray(2)]);
}

type Call = (name: string, action: string, args: Record<string, unknown>) => Promise<CallToolResult>;

/** Bytes whose base64 fits one request under the server's default body cap (1 MiB) with room for the envelope. */
const INLINE_MAX_BYTES = 700 * 1024;

/**
 * Import `bytes` as an agent would: inline `data` when they fit one request, else through the chunked
 * upload (svc_asset_upload_app begin, every chunk, complete — which imports). @returns the last call's result
 */
async function importBytes(call: Call, bytes: Buffer, filename: string): Promise<CallToolResult> {
  if (bytes.length <= INLINE_MAX_BYTES)
    return call('svc_asset_import', 'import', { data: bytes.toString('base64'), mime_type: 'image/jpeg', filename });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const begun = await call('svc_asset_upload_app', 'begin', { filename, size_bytes: bytes.length, sha256 });
  if (begun.isError) return begun;
  const { upload_id, chunk_size_bytes } = begun.structuredContent as { upload_id: string; chunk_size_bytes: number };
  for (let i = 0; i < chunkCount(bytes.length, chunk_size_bytes); i++) {
    const { start, end } = chunkRange(bytes.length, chunk_size_bytes, i);
    const r = await call('svc_asset_upload_app', 'chunk', { upload_id, index: i, data: bytes.subarray(start, end).toString('base64') });
    if (r.isError) return r;
  }
  return call('svc_asset_upload_app', 'complete', { upload_id });
}

async function run(plan: LoadPlan): Promise<LoadResult> {
  const cpu0 = process.cpuUsage();
  const clients: Client[] = [];
  const connect = async (): Promise<Call> => {
    const client = new Client({ name: 'atelier-load', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(plan.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${plan.apiKey}` } } }),
    );
    clients.push(client);
    return async (name, action, args) => await client.callTool({ name, arguments: { action, args } });
  };
  let seed = 7;
  const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;

  // Peer: the same kind of search sequence on the idle server, one session.
  const first = await connect();
  const idleSearchMs: number[] = [];
  for (let i = 0; i < 60; i++) {
    const t = performance.now();
    const r = await first('svc_asset_library', 'search', { theme_id: plan.themeId, query: QUERIES[i % QUERIES.length]!, limit: 20 });
    if (!r.isError) idleSearchMs.push(performance.now() - t);
  }

  const samples: LoadResult['samples'] = [];
  const browseOnly: LoadResult['browseOnly'] = [];
  const errors: string[] = [];
  let busy = 0;
  let imported = 0;
  let importsInFlight = 0;
  let browsing = true;
  const sessions = await Promise.all(Array.from({ length: plan.browsers + plan.importers }, connect));
  const mix = Object.entries(plan.mix ?? { search: 0.5, list_products: 0.3, view: 0.2 }) as [BrowseAction, number][];
  const mixTotal = mix.reduce((a, [, w]) => a + w, 0);
  const nextCall = (): [string, string, Record<string, unknown>] => {
    let r = rand() * mixTotal;
    const [action] = mix.find(([, w]) => (r -= w) < 0) ?? mix[mix.length - 1]!;
    switch (action) {
      case 'search':
        return ['svc_asset_library', 'search', { theme_id: plan.themeId, query: pick(QUERIES), limit: 20 }];
      case 'list_products':
        return ['svc_catalog', 'list_products', { query: pick(PRODUCT_QUERIES), limit: 20 }];
      case 'view':
        return ['svc_assets', 'view', { asset_id: pick(plan.assetIds) }];
      case 'capabilities':
        return ['svc_assets', 'capabilities', {}];
    }
  };
  const browser = async (call: Call, out: { action: string; ms: number; importsInFlight: number }[]): Promise<void> => {
    for (let i = 0; i < plan.callsPerBrowser; i++) {
      const [name, action, args] = nextCall();
      const before = importsInFlight;
      const t = performance.now();
      try {
        const res = await call(name, action, args);
        if (res.isError) errors.push(`${action}: ${JSON.stringify(res.structuredContent)}`);
      } catch (e) {
        errors.push(`${action}: ${(e as Error).message}`);
      }
      out.push({ action, ms: performance.now() - t, importsInFlight: Math.max(before, importsInFlight) });
    }
  };
  const importer = async (call: Call, who: number): Promise<void> => {
    for (let n = 0; browsing; n++) {
      const bytes = uniqueJpeg(demoFile(IMPORT_FILES[(who + n) % IMPORT_FILES.length]!), `${who}-${n}`);
      for (;;) {
        importsInFlight++;
        const t = performance.now();
        let res: CallToolResult | null = null;
        try {
          res = await importBytes(call, bytes, `load-${who}-${n}.jpg`);
        } catch (e) {
          errors.push(`import: ${(e as Error).message}`);
        } finally {
          importsInFlight--;
        }
        const err = (res?.structuredContent as { error?: { code: string; details?: { retry_after_ms?: number } } } | undefined)?.error;
        if (res?.isError && err?.code === 'busy') {
          busy++;
          await new Promise((r) => setTimeout(r, Math.min(5000, err.details?.retry_after_ms ?? 500)));
          continue;
        }
        samples.push({ action: 'import', ms: performance.now() - t, importsInFlight: 1 });
        if (res?.isError) errors.push(`import: ${JSON.stringify(res.structuredContent)}`);
        else if (res) imported++;
        break;
      }
    }
  };
  const phases: LoadResult['phases'] = [];
  const phase = async (name: LoadResult['phases'][number]['name'], work: () => Promise<unknown>): Promise<void> => {
    const startMs = Date.now();
    const cpu = process.cpuUsage();
    await work();
    const used = process.cpuUsage(cpu);
    phases.push({ name, startMs, endMs: Date.now(), clientCpuMs: (used.user + used.system) / 1000 });
  };
  const browseOnlyRun: LoadResult['samples'] = [];
  await phase('browse-only', () => Promise.all(sessions.slice(0, plan.browsers).map((s) => browser(s, browseOnlyRun))));
  browseOnly.push(...browseOnlyRun.map(({ action, ms }) => ({ action, ms })));
  const t0 = performance.now();
  const importers = Promise.all(sessions.slice(plan.browsers).map((s, i) => importer(s, i)));
  // the phase is the browsing under imports; the imports still in flight when it ends are awaited after it
  await phase('importing', () => Promise.all(sessions.slice(0, plan.browsers).map((s) => browser(s, samples))));
  browsing = false;
  await importers;
  const wallS = (performance.now() - t0) / 1000;
  for (const c of clients) await c.close().catch(() => undefined);
  const cpu = process.cpuUsage(cpu0);
  return { browseOnly, samples, idleSearchMs, errors, busy, imported, wallS, clientCpuMs: (cpu.user + cpu.system) / 1000, phases };
}

process.stdout.write(`${JSON.stringify(await run(JSON.parse(process.argv[2]!) as LoadPlan))}\n`);
