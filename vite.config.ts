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
