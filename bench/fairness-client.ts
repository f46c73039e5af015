/**
 * Client process of bench/fairness.bench.ts (its own event loop and CPU, not the server's). Usage:
 * `tsx bench/fairness-client.ts '<json FairnessPlan>'`; prints one JSON line to stdout.
 * - role `quiet`: one session, `calls` sequential searches of its theme; prints `{ms: number[]}` (per call, ms).
 * - role `noisy`: `workers` sessions searching as fast as they can until stdin closes (raw HTTP); prints counts of
 *   answers: ok, rate_limited (tool error), http429 (refused before the MCP layer), other errors; the line
 *   `refused` is printed at the first refusal.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export interface FairnessPlan {
  role: 'quiet' | 'noisy';
  mcpUrl: string;
  apiKey: string;
  themeId: string;
  /** quiet: searches to time */
  calls?: number;
  /** noisy: concurrent sessions */
  workers?: number;
}

export interface NoisyCounts {
  ok: number;
  rateLimited: number;
  http429: number;
  other: number;
  wallS: number;
}

const QUERIES = ['flowers', 'craft beer', 'mountain ridge', 'rocks', 'falcon', 'forest', 'cactus', 'book'];

async function session(plan: FairnessPlan): Promise<Client> {
  const client = new Client({ name: `atelier-fairness-${plan.role}`, version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(plan.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${plan.apiKey}` } } }),
  );
  return client;
}

const search = (c: Client, plan: FairnessPlan, i: number) =>
  c.callTool({
    name: 'svc_asset_library',
    arguments: { action: 'search', args: { theme_id: plan.themeId, query: QUERIES[i % QUERIES.length], limit: 20 } },
  });

async function quiet(plan: FairnessPlan): Promise<{ ms: number[] }> {
  const c = await session(plan);
  const ms: number[] = [];
  for (let i = 0; i < (plan.calls ?? 200); i++) {
    const t = performance.now();
    const r = await search(c, plan, i);
    if (r.isError) throw new Error(`quiet search failed: ${JSON.stringify(r.structuredContent)}`);
    ms.push(performance.now() - t);
  }
  await c.close();
  return { ms };
}

/**
 * Raw HTTP, not the SDK: a flood client does as little work per request as it can (one pre-serialised
 * body, no SSE parsing beyond reading the text), so what it costs the machine is mostly the server's work.
 * One 2025-06-18 session per worker (initialize, then tools/call after tools/call).
 */
async function noisy(plan: FairnessPlan): Promise<NoisyCounts> {
  const counts: NoisyCounts = { ok: 0, rateLimited: 0, http429: 0, other: 0, wallS: 0 };
  let running = true;
  process.stdin.on('end', () => (running = false));
  process.stdin.resume();
  let announced = false;
  /** the first refusal is announced on stdout, so the bench can start timing the quiet tenant past the burst */
  const refused = (): void => {
    if (announced) return;
    announced = true;
    process.stdout.write('refused\n');
  };
  const base = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${plan.apiKey}`,
  };
  const open = async (): Promise<Record<string, string>> => {
    const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'atelier-fairness-noisy', version: '0' } };
    const r = await fetch(plan.mcpUrl, {
      method: 'POST',
      headers: base,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init }),
    });
    await r.text();
    const sid = r.headers.get('mcp-session-id');
    if (!sid) throw new Error(`initialize answered ${r.status}`);
    const headers = { ...base, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    await (
      await fetch(plan.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
    ).text();
    return headers;
  };
  const bodies = QUERIES.map((query, i) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'svc_asset_library', arguments: { action: 'search', args: { theme_id: plan.themeId, query, limit: 20 } } },
    }),
  );
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    const headers = await open();
    for (let i = 0; running; i++) {
      try {
        const r = await fetch(plan.mcpUrl, { method: 'POST', headers, body: bodies[i % bodies.length] });
        const text = await r.text();
        if (r.status === 429) {
          counts.http429++;
          refused();
        } else if (r.status !== 200) counts.other++;
        else if (text.includes('"rate_limited"')) {
          counts.rateLimited++;
          refused();
        } else if (text.includes('"isError":true')) counts.other++;
        else counts.ok++;
      } catch {
        counts.other++;
      }
    }
  };
  await Promise.all(Array.from({ length: plan.workers ?? 8 }, worker));
  counts.wallS = (performance.now() - t0) / 1000;
  return counts;
}

const plan = JSON.parse(process.argv[2]!) as FairnessPlan;
const out = plan.role === 'quiet' ? await quiet(plan) : await noisy(plan);
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
