import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

/**
 * One panel per build: `INPUT=ui/<panel>/index.html vite build` bundles that panel (React, ext-apps App,
 * zod schemas from shared/) into ONE self-contained HTML file, `dist/ui/<panel>.html`, which the server
 * serves as a `ui://` MCP Apps resource. vite-plugin-singlefile needs a single input, hence one build
 * per panel (as in modelcontextprotocol/ext-apps `examples/basic-server-react/vite.config.ts`).
 * `scripts/build-ui.mjs` runs this for every panel folder.
 */
const input = process.env.INPUT;
if (!input) throw new Error('INPUT is not set: run `npm run build` (scripts/build-ui.mjs), or INPUT=ui/<panel>/index.html vite build');
const panelDir = path.dirname(path.resolve(input));
const panel = path.basename(panelDir);
const dev = process.env.NODE_ENV === 'development';
const require = createRequire(import.meta.url);

/**
 * PostCSS plugin: @uppy/dashboard's stylesheet (dist/style.min.css, 68 KB) compiles in the whole provider
 * browser stylesheet of @uppy/core (dist/provider-views.min.css, 22 KB: the Google Drive, Dropbox… pickers,
 * which need Companion; their components are not bundled, see atelier-uppy-inline-version). Drops each
 * Dashboard rule whose selectors all come from that stylesheet and each need a class that only the
 * provider views render (no module of @uppy/dashboard, @uppy/react or @uppy/core outside provider-views
 * contains it). `.uppy-DashboardContent-panelBody`, which the Dashboard's editor panel renders too, stays.
 * Other stylesheets pass through untouched.
 */
function dropUppyProviderViewsCss(): {
  postcssPlugin: string;
  Once: (root: PostcssRoot, helpers: { postcss: { parse: (css: string) => PostcssRoot } }) => void;
} {
  const dashboardCss = /[\\/]@uppy[\\/]dashboard[\\/]dist[\\/]style(\.min)?\.css$/;
  const classesOf = (sel: string): string[] => [...sel.matchAll(/\.(uppy-[\w-]+)/g)].map((m) => m[1]!);
  const rendered = new Set<string>();
  for (const lib of ['@uppy/dashboard', '@uppy/react', '@uppy/core'].map((p) => path.dirname(require.resolve(p))))
    for (const f of fs.readdirSync(lib, { recursive: true, encoding: 'utf8' }))
      if (f.endsWith('.js') && !f.startsWith(`provider-views${path.sep}`))
        for (const m of fs.readFileSync(path.join(lib, f), 'utf8').matchAll(/uppy-[\w-]+/g)) rendered.add(m[0]);
  return {
    postcssPlugin: 'atelier-drop-uppy-provider-views-css',
    Once(root, { postcss }) {
      if (!dashboardCss.test(root.source?.input.file ?? '')) return;
      const providerSelectors = new Set<string>();
      postcss
        .parse(fs.readFileSync(require.resolve('@uppy/core/provider-views/css/style.min.css'), 'utf8'))
        .walkRules((r) => r.selectors.forEach((sel) => providerSelectors.add(sel)));
      let dropped = 0;
      root.walkRules((r) => {
        const dead = r.selectors.every((sel) => providerSelectors.has(sel) && classesOf(sel).some((c) => !rendered.has(c)));
        if (!dead) return;
        r.remove();
        dropped++;
      });
      if (dropped === 0)
        throw new Error('atelier-drop-uppy-provider-views-css: no provider-view rules in the Dashboard CSS; update the plugin');
    },
  };
}
/** The slice of PostCSS's Root/Rule API the plugin above uses (postcss is Vite's, not a direct dependency). */
interface PostcssRoot {
  source?: { input: { file?: string } };
  walkRules: (fn: (rule: { selectors: string[]; remove: () => void }) => void) => void;
}

export default defineConfig({
  root: panelDir,
  base: './',
  plugins: [
    react(),
    viteSingleFile(),
    {
      // zod re-exports all ~50 message locales as `z.locales`; panels only use the default English one,
      // which zod installs from locales/en.js directly. Serving an English-only locales index saves
      // ~200 KB per panel (hosts cap View HTML at 1 MiB; we aim for < 600 KB).
      name: 'atelier-zod-english-only',
      enforce: 'pre',
      resolveId(source, importer) {
        if (source === '../locales/index.js' && importer && /[\\/]zod[\\/]v4[\\/]/.test(importer)) return '\0zod-locales-en';
        return null;
      },
      load(id) {
        if (id !== '\0zod-locales-en') return null;
        return `export { default as en } from ${JSON.stringify(path.resolve('node_modules/zod/v4/locales/en.js'))};`;
      },
    },
    {
      // ext-apps 1.7.5 (dist/src/app.js, react/index.js) converts a zod tool schema with
      // `let {z} = await import("zod/v4"); return z.toJSONSchema(schema, {io})`. A dynamic import of the whole
      // namespace defeats tree-shaking: every panel carried all of zod (z.compile, z.fromJSONSchema, the
      // namespace objects, a modulepreload helper). Import the one function statically instead; same call.
      name: 'atelier-ext-apps-static-zod',
      transform(code, id) {
        if (!/[\\/]@modelcontextprotocol[\\/]ext-apps[\\/]dist[\\/]/.test(id) || !code.includes('import("zod/v4")')) return null;
        const out = code.replace(
          /let\{z:([\w$]+)\}=await import\("zod\/v4"\);return \1\.toJSONSchema\(/g,
          'let $1={toJSONSchema:__atelierZodToJSONSchema};return $1.toJSONSchema(',
        );
        // An ext-apps update that uses the namespace differently must be looked at, not silently bundled in full.
        if (out.includes('import("zod/v4")')) this.error(`${id}: unexpected use of import("zod/v4"); update atelier-ext-apps-static-zod`);
        return { code: `import{toJSONSchema as __atelierZodToJSONSchema}from"zod/v4";${out}`, map: null };
      },
    },
    {
      // Every Uppy module that needs its version does `import packageJson from '../package.json' with { type:
      // 'json' }` and reads `packageJson.version` (e.g. `static VERSION = packageJson.version`). The default-
      // imported JSON is bundled whole (scripts, dependencies, keywords…), and a property read of an import
      // counts as a side effect, which kept whole unused classes (the provider browser) in the bundle. Inline
      // the version string instead. Any other use of `packageJson` fails the build.
      name: 'atelier-uppy-inline-version',
      enforce: 'pre',
      transform(code, id) {
        if (!/[\\/]node_modules[\\/]@uppy[\\/]/.test(id) || !code.includes('packageJson')) return null;
        const imp = /^import packageJson from '((?:\.\.\/)+package\.json)' with \{ type: 'json' \};$/m.exec(code);
        if (!imp) return this.error(`${id}: unexpected packageJson import; update atelier-uppy-inline-version`);
        const { version } = JSON.parse(fs.readFileSync(path.resolve(path.dirname(id), imp[1]!), 'utf8')) as { version: string };
        const out = code.replace(imp[0], '').replace(/\bpackageJson\.version\b/g, JSON.stringify(version));
        if (out.includes('packageJson')) return this.error(`${id} uses packageJson beyond .version; update atelier-uppy-inline-version`);
        return { code: out, map: null };
      },
    },
    {
      // @uppy/dashboard imports @uppy/thumbnail-generator (and with it exifr, ~34 KB minified) unconditionally
      // but only installs it without `disableThumbnailGenerator`. The upload panel sets that option (it makes
      // data: URL previews itself, ui/upload/preview.ts: blob: URLs are blocked by the MCP Apps CSP), so the
      // Dashboard gets a class that throws if anyone ever does install it.
      name: 'atelier-uppy-no-thumbnail-generator',
      enforce: 'pre',
      resolveId(source, importer) {
        if (source === '@uppy/thumbnail-generator' && importer && /[\\/]@uppy[\\/]dashboard[\\/]/.test(importer))
          return '\0atelier-no-thumbnail-generator';
        return null;
      },
      load(id) {
        if (id !== '\0atelier-no-thumbnail-generator') return null;
        return `export default class ThumbnailGenerator {
  constructor() {
    throw new Error('@uppy/thumbnail-generator is not bundled in this panel: give the Dashboard disableThumbnailGenerator (see vite.config.ts)');
  }
}`;
      },
    },
    {
      // Emit ui/<panel>/index.html as <panel>.html so dist/ui/ holds one file per panel.
      name: 'atelier-panel-name',
      enforce: 'post',
      generateBundle(_options, bundle) {
        for (const [key, asset] of Object.entries(bundle)) {
          if (key.endsWith('index.html')) asset.fileName = `${panel}.html`;
        }
      },
    },
  ],
  resolve: {
    alias: [
      {
        // ext-apps ships `.` (dist/src/app.js) and `./react` (dist/src/react/index.js) as two separate bundles,
        // and the react one contains — and exports — all of app.js (App, PostMessageTransport, the McpUi*
        // schemas, applyDocumentTheme…). Panels import from both, which bundled the App class and the protocol
        // schemas twice; resolve the bare package to the react bundle so there is one copy. A name the react
        // bundle does not export fails the build ("missing export"), so this cannot go wrong silently.
        find: /^@modelcontextprotocol\/ext-apps$/,
        replacement: require.resolve('@modelcontextprotocol/ext-apps/react'),
      },
    ],
  },
  css: { postcss: { plugins: [dropUppyProviderViewsCss()] } },
  logLevel: 'warn',
  build: {
    outDir: path.resolve('dist/ui'),
    emptyOutDir: false,
    sourcemap: dev ? 'inline' : false,
    minify: !dev,
    cssMinify: !dev,
    reportCompressedSize: false,
    rollupOptions: { input: path.resolve(input) },
  },
});
