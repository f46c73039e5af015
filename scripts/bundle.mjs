#!/usr/bin/env node
// `npm run bundle`: the MCP Bundle (.mcpb) for Claude Desktop and other MCPB hosts, built and validated with
// @anthropic-ai/mcpb (a devDependency; manifest spec 0.4), written to dist/bundle/atelier-<version>-<platform>-<arch>.mcpb.
//
// What goes in is what an npm installation runs, nothing from the checkout itself:
//   1. `npm pack` (its prepack runs scripts/build.mjs: the compiled server, the panels' HTML, word vectors, WordNet,
//      the OCR model, the demo photos) — or the tarball named by `--tarball <file>`, packed beforehand;
//   2. the tarball unpacked into a staging folder, then `npm ci --omit=dev --ignore-scripts` there with the lockfile
//      the package ships (npm-shrinkwrap.json, scripts/pack-lock.mjs): the production dependencies at the locked
//      versions (no install script is needed: better-sqlite3 13 ships prebuilt binaries, sharp and sqlite-vec take
//      theirs from per-platform packages);
//   3. pruned: better-sqlite3's binaries for other platforms and its C sources (no compiler runs on a desktop);
//   4. manifest.json written (server: `node bin/atelier.mjs serve --stdio` on the data folder the user picks in
//      `user_config`; no key: stdio serves that folder's only tenant), `mcpb validate`, then `mcpb pack`.
// The bundle is platform-specific — sharp's libvips and sqlite-vec are the build machine's — so the manifest's
// `compatibility.platforms` names only this platform; build it on each platform it should run on.
// Prints each step's time and the bundle's size; exits non-zero on failure. Options: --tarball <file>, --out <dir>.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name) => (argv.includes(name) ? path.resolve(argv[argv.indexOf(name) + 1]) : null);
const outDir = opt('--out') ?? path.join(root, 'dist', 'bundle');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-bundle-'));
const stage = path.join(tmp, 'atelier');
const mcpb = path.join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js');
// What a user's shell would have: no npm_* state of `npm run`, no ATELIER_* settings of this machine.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(ATELIER_|npm_)/.test(k) && k !== 'NODE_ENV'));
const started = Date.now();

function step(title, fn) {
  const t0 = Date.now();
  const ok = fn();
  process.stderr.write(`bundle: ${title} ${ok ? 'ok' : 'FAILED'} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  if (!ok) {
    fs.rmSync(tmp, { recursive: true, force: true });
    process.exit(1);
  }
}
/** Run a command with output on stderr (stdout too: mcpb and npm chat there). @returns whether it exited 0 */
const sh = (cmd, args, cwd) => spawnSync(cmd, args, { cwd, stdio: ['ignore', 2, 2], env: cleanEnv }).status === 0;
const bytesOf = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((n, e) => {
    const p = path.join(dir, e.name);
    return n + (e.isDirectory() ? bytesOf(p) : e.isFile() ? fs.statSync(p).size : 0);
  }, 0);
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;

let tarball = opt('--tarball');
if (!tarball)
  step('npm pack (prepack: scripts/build.mjs)', () => {
    const r = spawnSync('npm', ['pack', '--json', '--pack-destination', tmp], {
      cwd: root,
      env: cleanEnv,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    if (r.status !== 0) return (process.stderr.write(r.stderr ?? ''), false);
    tarball = path.join(tmp, JSON.parse(r.stdout.slice(r.stdout.indexOf('[')))[0].filename);
    return true;
  });

step('unpack the tarball and install the production dependencies (npm ci --omit=dev)', () => {
  fs.mkdirSync(stage);
  if (!sh('tar', ['-xzf', tarball, '-C', stage, '--strip-components=1'])) return false;
  return sh('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], stage);
});

step("prune other platforms' better-sqlite3 binaries and its C sources", () => {
  const bs = path.join(stage, 'node_modules', 'better-sqlite3');
  const keep = new Set([`${process.platform}-${process.arch}.node`, `linuxmusl-${process.arch}.node`]);
  for (const f of fs.readdirSync(path.join(bs, 'prebuilds')))
    if (!keep.has(f) || (process.platform !== 'linux' && f.startsWith('linuxmusl'))) fs.rmSync(path.join(bs, 'prebuilds', f));
  for (const d of ['deps', 'src']) fs.rmSync(path.join(bs, d), { recursive: true, force: true });
  return fs.readdirSync(path.join(bs, 'prebuilds')).length > 0;
});

const manifest = await manifestFor(stage);
const manifestPath = path.join(stage, 'manifest.json');
fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
step('mcpb validate manifest.json', () => sh(process.execPath, [mcpb, 'validate', manifestPath], stage));

const file = path.join(outDir, `atelier-${pkg.version}-${process.platform}-${process.arch}.mcpb`);
const unpacked = bytesOf(stage);
step('mcpb pack', () => {
  fs.mkdirSync(outDir, { recursive: true });
  fs.rmSync(file, { force: true });
  return sh(process.execPath, [mcpb, 'pack', stage, file], stage);
});
fs.rmSync(tmp, { recursive: true, force: true });
process.stderr.write(
  `bundle: ${file}\nbundle: ${mb(fs.statSync(file).size)} (staged tree ${mb(unpacked)} before zip), built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
process.stdout.write(`${file}\n`);

/**
 * The manifest (MCPB 0.4): the entry point and its stdio command, the data-folder setting, this platform, and the
 * model-visible tools with their titles (read from the compiled registry in the staged package: panel-only tools,
 * `visibility: ["app"]`, are left out of the list the install dialog shows).
 */
async function manifestFor(dir) {
  const { ROUTERS } = await import(pathToFileURL(path.join(dir, 'dist', 'shared', 'actions.js')).href);
  return {
    manifest_version: '0.4',
    name: 'atelier',
    display_name: 'Atelier',
    version: pkg.version,
    description: pkg.description,
    long_description:
      'Search, pick, generate, import and upload images for storefronts, and read a product catalog, with interactive panels (MCP Apps). ' +
      'Everything stays in the data folder you choose: a SQLite database and the image files. A new folder starts with the demo library. ' +
      'No API key is needed: the bundle serves the folder for you alone.',
    author: { name: 'Atelier contributors' },
    keywords: ['images', 'assets', 'catalog', 'storefront', 'mcp-apps'],
    server: {
      type: 'node',
      entry_point: 'bin/atelier.mjs',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/bin/atelier.mjs', 'serve', '--stdio'],
        env: { ATELIER_DATA_DIR: '${user_config.data_dir}' },
      },
    },
    tools: ROUTERS.filter((r) => !r.visibility || r.visibility.includes('model')).map((r) => ({ name: r.name, description: r.title })),
    tools_generated: false,
    user_config: {
      data_dir: {
        type: 'directory',
        title: 'Data folder',
        description:
          "Where Atelier keeps its library (atelier.db and the image files). A new folder gets the demo library; a folder of 'atelier start' is served as it is.",
        required: true,
        default: '${HOME}/Atelier',
      },
    },
    compatibility: { platforms: [process.platform], runtimes: { node: pkg.engines.node } },
  };
}
