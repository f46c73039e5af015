/**
 * The server side of the load run (bench/load.bench.ts, bench/load-profile.ts): the real application on a
 * temp data dir, the demo tenant seeded through the import path (22 photos and the demo catalog,
 * enrichment and OCR on as in production), listening on loopback; and the client process
 * (bench/load-client.ts) run against it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../e2e/mcp/harness.ts';
import { seedDemo } from '../server/seed.ts';
import type { LoadPlan, LoadResult } from './load-client.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

export interface LoadServer {
  srv: TestServer;
  /** everything a client plan needs but the session counts */
  base: Pick<LoadPlan, 'mcpUrl' | 'apiKey' | 'themeId' | 'assetIds'>;
}

/**
 * Start the server, seed the demo tenant and wait (≤ 10 min) until its enrichment (embeddings, OCR) is
 * done, so search has its full index. `env` adds server settings (e.g. ATELIER_LOG_LEVEL).
 * With `template` (a directory; for repeated profiling runs, where seeding with OCR takes minutes on a
 * busy machine) the seeded and enriched data dir is made there once and each run starts on a copy of it
 * with a new API key; without it every run seeds a fresh temp dir.
 * @throws Error when seeding creates no API key or enrichment does not finish in time
 */
export async function startLoadServer(env: Record<string, string> = {}, template?: string): Promise<LoadServer> {
  if (!template) return seeded(env);
  const ready = path.join(template, 'load-template-ready');
  if (!fs.existsSync(ready)) {
    fs.rmSync(template, { recursive: true, force: true });
    fs.mkdirSync(template, { recursive: true });
    await (await seeded(env, template)).srv.close();
    fs.writeFileSync(ready, '');
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-load-'));
  fs.cpSync(template, dataDir, { recursive: true });
  const s = await seeded(env, dataDir);
  const close = s.srv.close.bind(s.srv);
  s.srv.close = async () => {
    await close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return s;
}

async function seeded(env: Record<string, string>, dataDir?: string): Promise<LoadServer> {
  const srv = await startTestServer({ env: { ATELIER_OCR: '1', ...env }, dataDir });
  try {
    const bundle = await seedDemo(srv.app, { newKey: true });
    const apiKey = bundle.api_key;
    if (!apiKey) throw new Error('seed-demo created no API key on a fresh data dir');
    const http = await srv.listen();
    const scope = { tenantId: bundle.tenant_id, workspaceId: bundle.workspace_id };
    const assets = srv.app.library.assets;
    const rowsOf = async () =>
      assets.bySeqs(
        scope,
        Array.from({ length: await assets.maxSeq(scope) }, (_, i) => i + 1),
      );
    for (const until = Date.now() + 600_000; ;) {
      const rows = await rowsOf();
      if (rows.every((a) => a.enrichment_status !== 'pending' && a.enrichment_status !== 'running')) break;
      if (Date.now() > until) throw new Error('seed enrichment did not finish');
      await new Promise((res) => setTimeout(res, 500));
    }
    return {
      srv,
      base: { mcpUrl: http.mcpUrl, apiKey, themeId: bundle.theme_id, assetIds: (await rowsOf()).map((a) => a.id) },
    };
  } catch (e) {
    await srv.close();
    throw e;
  }
}

/**
 * Run bench/load-client.ts in a child process (its own event loop and CPU time, not the server's).
 * @returns the client's measurements
 * @throws Error when the client process fails
 */
export async function runLoadClient(plan: LoadPlan): Promise<LoadResult> {
  const { stdout } = await run(
    path.join(here, '..', 'node_modules', '.bin', 'tsx'),
    [path.join(here, 'load-client.ts'), JSON.stringify(plan)],
    { maxBuffer: 64 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as LoadResult;
}
