/**
 * The MCP Bundle (issue 37 item 5, done-when 3): `scripts/bundle.mjs` (`npm run bundle`) on the tarball this run
 * packed (pack.global.ts, or scripts/test-all.mjs beforehand), then what a host does with the file: `mcpb unpack`,
 * `mcpb validate` of its manifest, the server command built from the manifest by mcpb's own
 * `getMcpConfigForManifest` (the code Claude Desktop uses) with a fresh data folder as the user's pick, and an MCP
 * client (v2 SDK) over stdio to that command: no API key anywhere, the demo library searchable, the panels served.
 * Nothing from the checkout runs: the unpacked bundle holds the compiled server and its production dependencies.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { getMcpConfigForManifest, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, wrapClient } from '../mcp/harness.ts';

const run = promisify(execFile);
const MINUTE = 60_000;
const MCPB = path.join(REPO_ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');

describe('the MCP Bundle (npm run bundle)', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-mcpb-'));
  const unpacked = path.join(tmp, 'unpacked');
  const home = path.join(tmp, 'home');
  const packReport = process.env.ATELIER_PACKAGE_PACK_REPORT;
  // What a desktop app's child would have: none of this machine's ATELIER_* settings, npm_* or test-runner state.
  const baseEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(ATELIER_|npm_|VITEST)/.test(k) && k !== 'NODE_ENV' && k !== 'NODE_OPTIONS'),
  ) as Record<string, string>;
  let file: string;
  let manifest: McpbManifestAny;

  beforeAll(async () => {
    if (!packReport) throw new Error('ATELIER_PACKAGE_PACK_REPORT is unset: run with --config e2e/package/vitest.config.ts');
    const packed = (JSON.parse(fs.readFileSync(packReport, 'utf8')) as { filename: string }[])[0]!;
    const t0 = Date.now();
    const { stdout, stderr } = await run(
      process.execPath,
      [path.join(REPO_ROOT, 'scripts', 'bundle.mjs'), '--tarball', path.join(path.dirname(packReport), packed.filename), '--out', tmp],
      { cwd: REPO_ROOT, env: baseEnv, maxBuffer: 256 * 1024 * 1024 },
    );
    file = stdout.trim().split('\n').pop()!;
    process.stderr.write(
      `bundle: ${path.basename(file)} ${(fs.statSync(file).size / 1e6).toFixed(1)} MB, built from the tarball in ${((Date.now() - t0) / 1000).toFixed(1)} s\n` +
        stderr
          .split('\n')
          .filter((l) => l.startsWith('bundle:'))
          .join('\n') +
        '\n',
    );
    await run(process.execPath, [MCPB, 'unpack', file, unpacked], { maxBuffer: 64 * 1024 * 1024 });
    manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'manifest.json'), 'utf8')) as McpbManifestAny;
  }, 15 * MINUTE);

  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is accepted by mcpb validate, names this platform only, and asks for a data folder and no key', async () => {
    expect(path.basename(file)).toBe(`atelier-0.1.0-${process.platform}-${process.arch}.mcpb`);
    const { stdout } = await run(process.execPath, [MCPB, 'validate', path.join(unpacked, 'manifest.json')]);
    expect(stdout).toMatch(/Manifest schema validation passes/);
    expect(manifest.compatibility?.platforms).toEqual([process.platform]);
    expect(manifest.server).toMatchObject({ type: 'node', entry_point: 'bin/atelier.mjs' });
    expect(manifest.server.mcp_config.args).toEqual(['${__dirname}/bin/atelier.mjs', 'serve', '--stdio']);
    expect(Object.entries(manifest.user_config ?? {}).map(([k, v]) => [k, v.type, v.required])).toEqual([['data_dir', 'directory', true]]);
    expect(JSON.stringify(manifest)).not.toMatch(/API_KEY/);
    // panel-only tools are no tools of the install dialog; the model's are
    const tools = (manifest.tools ?? []).map((t) => t.name);
    expect(tools).toContain('svc_asset_library');
    expect(tools).not.toContain('svc_asset_panel');
  });

  it('ships the compiled server, the built panels and one platform of better-sqlite3, and no TypeScript sources', () => {
    expect(fs.existsSync(path.join(unpacked, 'dist', 'server', 'cli', 'index.js'))).toBe(true);
    expect(fs.existsSync(path.join(unpacked, 'server'))).toBe(false);
    for (const panel of ['asset-picker', 'search-results', 'upload'])
      expect(fs.existsSync(path.join(unpacked, 'dist', 'ui', `${panel}.html`))).toBe(true);
    const prebuilds = fs.readdirSync(path.join(unpacked, 'node_modules', 'better-sqlite3', 'prebuilds'));
    expect(prebuilds).toContain(`${process.platform}-${process.arch}.node`);
    expect(
      prebuilds.filter(
        (f) => !f.endsWith(`-${process.arch}.node`) || !f.startsWith(process.platform === 'linux' ? 'linux' : process.platform),
      ),
    ).toEqual([]);
    for (const dev of ['typescript', 'vite', '@tanstack/react-virtual', 'tsx', 'vitest', '@anthropic-ai/mcpb'])
      expect(fs.existsSync(path.join(unpacked, 'node_modules', dev)), dev).toBe(false);
  });

  it(
    'runs its entry point over stdio on the picked folder, with no key: the demo library is searched and the panels are served',
    async () => {
      const dataDir = path.join(tmp, 'picked folder'); // a space, as in "~/Documents/My Atelier"
      const config = await getMcpConfigForManifest({
        manifest,
        extensionPath: unpacked,
        systemDirs: { HOME: home },
        userConfig: { data_dir: dataDir },
        pathSeparator: path.sep,
      });
      expect(config).toBeDefined();
      expect(config!.env).toEqual({ ATELIER_DATA_DIR: dataDir });
      const transport = new StdioClientTransport({
        // the host's own Node for "node"; here the one running this test
        command: config!.command === 'node' ? process.execPath : config!.command,
        args: config!.args,
        cwd: home,
        // ATELIER_PORT=0: the CDN listener must not collide with another server on this machine
        env: { ...baseEnv, ...config!.env, ATELIER_PORT: '0', ATELIER_LOG_LEVEL: 'warn' },
        stderr: 'pipe',
      });
      fs.mkdirSync(home, { recursive: true });
      const client = new Client({ name: 'mcpb-test', version: '0' });
      await client.connect(transport);
      try {
        const c = wrapClient(client);
        const scope = await c.call('svc_discover', 'scope', {});
        const themeId = (scope.structured.defaults as { theme_id: string }).theme_id;
        let assets: { name: string; url: string }[] = [];
        for (const end = Date.now() + 4 * MINUTE; Date.now() < end && !assets.some((a) => a.name === 'prairie_falcon.jpg');) {
          const r = await c.call('svc_asset_library', 'search', { theme_id: themeId, query: 'falcon', mode: 'all' });
          expect(r.isError).toBe(false);
          assets = r.structured.assets as typeof assets;
          if (!assets.some((a) => a.name === 'prairie_falcon.jpg')) await new Promise((res) => setTimeout(res, 2000));
        }
        const falcon = assets.find((a) => a.name === 'prairie_falcon.jpg');
        expect(falcon).toBeDefined();
        const bytes = await fetch(falcon!.url);
        expect(bytes.status).toBe(200);
        expect(bytes.headers.get('content-type')).toBe('image/jpeg');

        const { resources } = await client.listResources();
        const panels = resources.filter((r) => r.uri.startsWith('ui://'));
        expect(panels.length).toBeGreaterThanOrEqual(3);
        const html = await client.readResource({ uri: panels[0]!.uri });
        expect((html.contents[0] as { text: string }).text).toMatch(/^<!doctype html>/i);
        // the library lives in the picked folder
        expect(fs.existsSync(path.join(dataDir, 'atelier.db'))).toBe(true);
      } finally {
        await client.close();
      }
    },
    6 * MINUTE,
  );
});
