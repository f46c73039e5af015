/**
 * The demo, seeded once per run of this file through the real CLI (`atelier seed-demo --json`, a child
 * process): a full seed decodes every demo photo (the 4032×3024 HEIC and four 5–6k px JPEGs), so the
 * content checks (an in-process server on the same data dir) and the CLI's idempotence share one.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IMAGES_DIR, loadDemoMetadata } from '../../server/seed.ts';
import {
  backendEnv,
  connectApp,
  queryDataDir,
  REPO_ROOT,
  startTestServer,
  wrapClient,
  type CallResult,
  type TestClient,
  type TestServer,
} from './harness.ts';
import { CLI } from './processes.ts';

const run = promisify(execFile);
const names = (r: CallResult): string[] => (r.structured.assets as { name: string }[]).map((a) => a.name);

describe('demo seed (atelier seed-demo)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-seed-'));
  // the CLI children and the in-process server share the data dir's backends (under `npm run test:scale`
  // part 2 its PostgreSQL schema and S3 prefix)
  const env = {
    ...process.env,
    ...backendEnv(path.basename(dataDir)),
    ATELIER_DATA_DIR: dataDir,
    ATELIER_LOG_LEVEL: 'warn',
    ATELIER_PORT: '0',
  };
  const seed = async (...flags: string[]): Promise<Record<string, unknown>> =>
    JSON.parse((await run(process.execPath, [CLI, 'seed-demo', '--json', ...flags], { env, cwd: REPO_ROOT })).stdout) as Record<
      string,
      unknown
    >;
  let once: Record<string, unknown>;
  let srv: TestServer;
  let c: TestClient;
  let theme: string;
  beforeAll(async () => {
    once = await seed();
    // Enrichment (queued by the seed) is not under test here.
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' }, dataDir });
    c = await connectApp(srv.app, String(once.api_key));
    theme = String(once.theme_id);
  }, 300_000);
  afterAll(async () => {
    await c.close();
    await srv.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('imports every demo photo with the curated alt text, tags, purpose and category as user metadata', async () => {
    const curated = loadDemoMetadata(DEMO_IMAGES_DIR);
    expect(curated.size).toBe(22);
    const all = await c.call('svc_asset_library', 'search', { theme_id: theme, limit: 50 });
    expect(all.structured.total).toBe(22);
    const beer = (
      all.structured.assets as { name: string; alt_text: string; tags: string[]; category: string | null; subtype: string | null }[]
    ).find((a) => a.name === 'craft-beer.jpg')!;
    expect(beer).toMatchObject({ alt_text: curated.get('text/craft-beer.jpg')!.alt_text, category: 'lifestyle', subtype: 'editorial' });
    expect(beer.tags.slice(0, 3)).toEqual(['beer', 'craft beer', 'bar']);
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, category: 'document', subtype: 'chart' }))).toEqual([
      'density_plot.png',
    ]);
    expect(
      names(await c.call('svc_asset_library', 'search', { theme_id: theme, category: 'background', subtype: 'hero-bg' })).sort(),
    ).toEqual(['denali.webp', 'tanners_ridge.jpg']);
    // the HEIC is stored as PNG under its converted name
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'alt_text', query: 'sensor steel frame' }))).toEqual([
      'IMG_2682.png',
    ]);
  });

  it('finds the photos a merchant would look for by their descriptions', async () => {
    const flowers = names(await c.call('svc_asset_library', 'search', { theme_id: theme, mode: 'tags', query: 'flower' }));
    // "flower" also matches the tag "flowers" (prefix match)
    expect(flowers.sort()).toEqual([
      'book-beside-flowers.jpg',
      'cyclamen_persicum.jpg',
      'notocactus_minimus.jpg',
      'orychophragmus_violaceus.jpg',
      'polemonium_reptans.jpg',
      'wood_anemones.jpg',
    ]);
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'bird of prey' }))[0]).toBe('prairie_falcon.jpg');
    expect(names(await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'japanese storefront at night' }))[0]).toBe(
      'japanese-shop.jpg',
    );
  });

  it('is idempotent, prints the same five fields, stores the demo key only as a hash and mints a new one on request', async () => {
    expect(Object.keys(once).sort()).toEqual(['api_key', 'store_id', 'tenant_id', 'theme_id', 'workspace_id']);
    expect(once.api_key).toMatch(/^atl_/);
    // Later runs: the same ids; the key was shown once and is not stored in a readable form.
    const twice = await seed();
    expect(twice).toEqual({ ...once, api_key: null });
    const human = (await run(process.execPath, [CLI, 'seed-demo'], { env, cwd: REPO_ROOT })).stdout;
    expect(human).toContain('--new-key');
    expect(human).toContain('imported: 0, already present: 22');
    const minted = await seed('--new-key');
    expect(minted).toMatchObject({ tenant_id: once.tenant_id, workspace_id: once.workspace_id });
    expect(minted.api_key).toMatch(/^atl_/);
    expect(minted.api_key).not.toBe(once.api_key);
    const settings = JSON.stringify(await queryDataDir(dataDir, 'SELECT key, value FROM settings'));
    expect(settings).not.toContain(String(once.api_key));
    expect(settings).not.toContain(String(minted.api_key));
    // Both keys work (the first was printed at creation; the user may have configured it).
    for (const key of [once.api_key, minted.api_key]) {
      const child = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', '--stdio'],
        env: { ...env, ATELIER_API_KEY: String(key) },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'demo-key', version: '0' });
      await client.connect(child);
      const r = await wrapClient(client).call('svc_asset_library', 'search', { theme_id: once.theme_id, limit: 1 });
      expect(r.isError).toBe(false);
      await client.close();
    }
  }, 300_000);
});
