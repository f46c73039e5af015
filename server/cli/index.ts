import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import cliProgress from 'cli-progress';
import { ConfigError } from '../config.ts';
import { registerCatalogCommands } from './catalog.ts';
import { registerCreditCommands } from './credits.ts';
import { registerEnrichmentCommands } from './enrichment.ts';
import { registerMigrateBackendCommand } from './migrate-backend.ts';
import { registerOAuthCommands } from './oauth.ts';
import { registerTenancyCommands } from './tenancy.ts';
import { registerSynonymCommands } from './synonyms.ts';
import { collectBlobGarbage } from '../storage/blob-gc.ts';
import { storeAsset } from '../assets/import.ts';
import { boot, serveHttp, serveStdio, StartError, type Running } from '../main.ts';
import { DEMO_IMAGES_DIR, listImageFiles, metadataFromPath, seedDemo, type DemoBundle } from '../seed.ts';
import { createApiKey, createTenant, createWorkspace } from '../tenancy/admin.ts';
import { PACKAGE_VERSION } from '../package-root.ts';

/** Print a result as JSON (`--json`) or as `key: value` lines. Output goes to stdout on purpose: it is the command's result. */
function emit(json: boolean, value: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

function fail(message: string): never {
  process.stderr.write(`atelier: ${message}\n`);
  process.exit(2);
}

function progressBar(total: number): { tick(label: string): void; stop(): void } {
  if (!process.stderr.isTTY || total < 2) return { tick: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: ' {bar} {value}/{total} {label}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label: '' });
  return { tick: (label) => bar.increment(1, { label }), stop: () => bar.stop() };
}

/**
 * Stop gracefully and exit 0 on SIGTERM, SIGINT or (stdio) the end of stdin; a second signal exits at once
 * (code 130). A stop that fails exits 1.
 */
function exitOnStop(running: Running): void {
  let signalled = false;
  const stop = (): void => {
    void running.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        running.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const onSignal = (): void => {
    if (signalled) process.exit(130);
    signalled = true;
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  void running.clientGone.then(stop);
}

const program = new Command('atelier')
  .description(
    'Atelier: MCP server with an image asset library and a product catalog for storefront-building agents.\nConfiguration comes from ATELIER_* environment variables (see README).',
  )
  .version(PACKAGE_VERSION, '-V, --version', 'print the version')
  .showHelpAfterError();

program
  .command('serve')
  .description('serve MCP over Streamable HTTP (/mcp) or stdio; the /cdn asset route runs in both modes')
  .addOption(
    new Option('--stdio', "MCP over stdin/stdout (as ATELIER_API_KEY; without it, as the data dir's only tenant)").conflicts('http'),
  )
  .addOption(new Option('--http', 'MCP over Streamable HTTP at /mcp (default)'))
  .option('--port <n>', 'listen port (overrides ATELIER_PORT)', (v) => Number.parseInt(v, 10))
  .action(async (o: { stdio?: boolean; port?: number }) => {
    const { app, log } = await boot();
    const running = o.stdio ? await serveStdio(app, log, o.port) : await serveHttp(app, log, o.port);
    exitOnStop(running);
  });

program
  .command('start')
  .description(
    'npm start: serve HTTP on 127.0.0.1, print how to connect, and seed the demo workspace while serving (the demo API key is shown once, at creation)',
  )
  .option('--port <n>', 'listen port', (v) => Number.parseInt(v, 10))
  .option('--new-key', 'mint a new demo API key and print it (keys are stored only as hashes, so an earlier key cannot be shown again)')
  .action(async (o: { port?: number; newKey?: boolean }) => {
    const { app, log } = await boot();
    // Listen and start the workers before seeding, and warm up meanwhile: a port in use fails at once,
    // /healthz answers while the demo photos are stored, the one-time word-vector and WordNet builds run
    // beside the seed, and each photo is analysed as it is stored rather than after the last one.
    const running = await serveHttp(app, log, o.port, { warm: 'after' });
    exitOnStop(running);
    // The banner as soon as the demo key exists; the library's count once the photos are stored.
    const banner = (demo: DemoBundle, apiKey: string | null): void => {
      const key = apiKey ?? '<your demo API key>';
      const config = { mcpServers: { atelier: { type: 'http', url: running.http.mcpUrl, headers: { Authorization: `Bearer ${key}` } } } };
      const keyLine = apiKey
        ? `${apiKey}  (shown once: only its hash is stored; save it now)`
        : 'not shown (it was printed when it was created; only its hash is stored). Lost it? Restart with `npm start -- --new-key` to mint a new one.';
      process.stderr.write(
        `\nAtelier is running.\n  MCP URL:      ${running.http.mcpUrl}\n  API key:      ${keyLine}\n  workspace_id: ${demo.workspace_id}\n  theme_id:     ${demo.theme_id}\n  store_id:     ${demo.store_id}\n` +
          `  demo library: seeding now (searches report what is still being indexed)\n\nClient config (paste into an MCP client):\n${JSON.stringify(config, null, 2)}\n\n`,
      );
    };
    const demo = await seedDemo(app, { extraSteps: [], newKey: !!o.newKey, onTenant: banner });
    process.stderr.write(
      `demo library: ${demo.imported} imported now, ${demo.skipped} already present${demo.failed.length ? `, ${demo.failed.length} failed:\n  ${demo.failed.join('\n  ')}` : ''}\n`,
    );
  });

program
  .command('seed-demo')
  .description(
    'create the demo tenant/workspace/theme/store/key and import the demo photos (idempotent); the demo API key is printed once, when created',
  )
  .option('--new-key', 'mint a new API key for the demo tenant and print it (keys are stored only as hashes)')
  .option(
    '--json',
    'print {"tenant_id","workspace_id","theme_id","store_id","api_key"} (api_key null unless created or minted by this run)',
  )
  .action(async (o: { json?: boolean; newKey?: boolean }) => {
    const { app } = await boot();
    const bar = progressBar(listImageFiles(DEMO_IMAGES_DIR).length);
    const r = await seedDemo(app, { newKey: !!o.newKey, onProgress: (_d, _t, f) => bar.tick(path.basename(f)) });
    bar.stop();
    await app.close();
    const { tenant_id, workspace_id, theme_id, store_id, api_key } = r;
    const keyText = api_key
      ? `${api_key} (shown once: only its hash is stored)`
      : 'not shown (printed when it was created; only its hash is stored) — run `atelier seed-demo --new-key` to mint a new one';
    emit(
      !!o.json,
      { tenant_id, workspace_id, theme_id, store_id, api_key },
      `tenant_id: ${tenant_id}\nworkspace_id: ${workspace_id}\ntheme_id: ${theme_id}\nstore_id: ${store_id}\napi_key: ${keyText}\nimported: ${r.imported}, already present: ${r.skipped}${r.failed.length ? `\nfailed:\n  ${r.failed.join('\n  ')}` : ''}`,
    );
  });

const tenant = program.command('tenant').description('manage tenants');
tenant
  .command('create')
  .description('create a tenant with one active workspace, theme, store and API key')
  .requiredOption('--name <name>', 'tenant name')
  .option('--json', 'print {"tenant_id","workspace_id","theme_id","store_id","api_key"}')
  .action(async (o: { name: string; json?: boolean }) => {
    const { app } = await boot();
    const b = await createTenant(app.library.tenancy, o.name);
    await app.close();
    emit(
      !!o.json,
      { ...b },
      Object.entries(b)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n'),
    );
  });

const workspace = program.command('workspace').description('manage workspaces');
workspace
  .command('create')
  .description("add a workspace with its theme and store; the tenant's API keys are granted access")
  .requiredOption('--tenant <id>', 'tenant id')
  .requiredOption('--name <name>', 'workspace name')
  .option('--json', 'print {"tenant_id","workspace_id","theme_id","store_id"}')
  .action(async (o: { tenant: string; name: string; json?: boolean }) => {
    const { app } = await boot();
    if (!(await app.library.tenancy.tenant(o.tenant))) fail(`tenant ${o.tenant} does not exist`);
    const w = await createWorkspace(app.library.tenancy, o.tenant, o.name);
    await app.close();
    emit(
      !!o.json,
      { tenant_id: o.tenant, ...w },
      Object.entries({ tenant_id: o.tenant, ...w })
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n'),
    );
  });

const keys = program.command('keys').description('manage API keys');
keys
  .command('create')
  .description("create an API key reaching the given workspaces (default: all of the tenant's)")
  .requiredOption('--tenant <id>', 'tenant id')
  .option('--workspace <id...>', 'workspace id(s) the key reaches')
  .option('--name <name>', 'label for the key', 'cli')
  .option('--json', 'print {"tenant_id","api_key_id","api_key","workspace_ids"}')
  .action(async (o: { tenant: string; workspace?: string[]; name: string; json?: boolean }) => {
    const { app } = await boot();
    if (!(await app.library.tenancy.tenant(o.tenant))) fail(`tenant ${o.tenant} does not exist`);
    let k;
    try {
      k = await createApiKey(app.library.tenancy, o.tenant, { name: o.name, ...(o.workspace ? { workspaceIds: o.workspace } : {}) });
    } catch (e) {
      fail((e as Error).message);
    }
    const workspace_ids = (await app.library.tenancy.reachableWorkspaces(k.api_key_id, o.tenant)).map((w) => w.id);
    await app.close();
    emit(
      !!o.json,
      { tenant_id: o.tenant, api_key_id: k.api_key_id, api_key: k.api_key, workspace_ids },
      `api_key: ${k.api_key}\napi_key_id: ${k.api_key_id}\nworkspaces: ${workspace_ids.join(', ')}`,
    );
  });

program
  .command('import')
  .description(
    "bulk-import image files or directories (recursive) into a workspace, with their folders as tags; alt text comes from enrichment (a vision model's caption, the file's own caption, else its name and OCR text)",
  )
  .argument('<paths...>', 'files or directories')
  .option('--workspace <id>', 'target workspace (required when several active workspaces exist)')
  .option('--json', 'print one JSON summary {"imported","deduplicated","failed":[{"file","code","message"}],"assets":[…]}')
  .action(async (paths: string[], o: { workspace?: string; json?: boolean }) => {
    const { app } = await boot();
    const ops = app.library.tenancy.operator;
    let ws = o.workspace ? await ops.workspaceById(o.workspace) : undefined;
    if (o.workspace && (!ws || ws.status !== 'active')) fail(`workspace ${o.workspace} does not exist or is archived`);
    if (!ws) {
      const active = await ops.activeWorkspaces();
      if (active.length !== 1)
        fail(`${active.length} active workspaces exist; pass --workspace (one of: ${active.map((w) => `${w.id} "${w.name}"`).join(', ')})`);
      ws = active[0]!;
    }
    const files: { file: string; root: string }[] = [];
    for (const p of paths) {
      const abs = path.resolve(p);
      if (!fs.existsSync(abs)) fail(`${p} does not exist`);
      if (fs.statSync(abs).isDirectory()) files.push(...listImageFiles(abs).map((f) => ({ file: f, root: abs })));
      else files.push({ file: abs, root: path.dirname(abs) });
    }
    const bar = progressBar(files.length);
    const scope = { tenantId: ws.tenant_id, workspaceId: ws.id };
    const summary = {
      imported: 0,
      deduplicated: 0,
      failed: [] as { file: string; code: string; message: string }[],
      assets: [] as { file: string; asset_id: string; url: string; deduplicated: boolean }[],
    };
    for (const { file, root } of files) {
      const meta = metadataFromPath(file, root);
      try {
        const { asset } = await storeAsset(app.library, scope, {
          bytes: fs.readFileSync(file),
          field: file,
          source: 'cli',
          user: { filename: path.basename(file), tags: meta.tags },
        });
        summary.assets.push({ file, asset_id: asset.asset_id, url: asset.url, deduplicated: asset.deduplicated });
        if (asset.deduplicated) summary.deduplicated++;
        else summary.imported++;
      } catch (e) {
        const err = e as { code?: string; message: string };
        summary.failed.push({ file, code: err.code ?? 'internal', message: err.message });
      }
      bar.tick(path.basename(file));
    }
    bar.stop();
    await app.close();
    emit(
      !!o.json,
      summary,
      `imported ${summary.imported}, already present ${summary.deduplicated}, failed ${summary.failed.length}${summary.failed.map((f) => `\n  ${f.file}: ${f.message}`).join('')}`,
    );
    if (summary.failed.length > 0 && summary.imported + summary.deduplicated === 0) process.exitCode = 1;
  });

program
  .command('gc')
  .description('remove blob files no asset or rendition references (deleted assets, failed inserts) once older than the grace period')
  .option('--grace-minutes <n>', 'minimum age of an unreferenced blob in minutes (default: ATELIER_BLOB_GC_GRACE_MS)', (v) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) fail(`--grace-minutes must be a number ≥ 0 (got ${v})`);
    return n;
  })
  .option('--json', 'print {"scanned","removed","removed_bytes","kept_recent"}')
  .action(async (o: { graceMinutes?: number; json?: boolean }) => {
    const { app } = await boot();
    const graceMs = o.graceMinutes !== undefined ? o.graceMinutes * 60_000 : app.config.env.ATELIER_BLOB_GC_GRACE_MS;
    const r = await collectBlobGarbage({
      blobs: app.library.blobs,
      referenced: (sha) => app.library.assets.blobReferenced(sha),
      graceMs,
      hooks: app.library.testHooks,
    });
    await app.close();
    emit(
      !!o.json,
      { ...r },
      `scanned ${r.scanned} blobs; removed ${r.removed} (${(r.removed_bytes / 1048576).toFixed(1)} MiB); kept ${r.kept_recent} unreferenced within the grace period`,
    );
  });

registerCatalogCommands(program, { emit, fail });
registerTenancyCommands(program, { emit, fail }, { tenant, workspace, keys });
registerCreditCommands(program, { emit, fail });
registerEnrichmentCommands(program, { emit, fail });
registerSynonymCommands(program, { emit, fail });
registerMigrateBackendCommand(program, { emit, fail });
registerOAuthCommands(program, { emit, fail });

program.parseAsync(process.argv).catch((e: unknown) => {
  if (e instanceof ConfigError || e instanceof StartError) fail(e.message);
  fail((e as Error).stack ?? String(e));
});
