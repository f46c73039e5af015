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
