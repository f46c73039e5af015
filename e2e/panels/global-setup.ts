import fs from 'node:fs';
import path from 'node:path';
import { build } from 'vite';
import { REPO_ROOT } from '../mcp/harness.ts';
import { HOST_DIST } from './host-server.ts';

/**
 * Build the test MCP Apps host (e2e/host: host page + sandbox proxy, bundling the SDK's AppBridge) into
 * dist/e2e-host, and warn about panels not built (`npm run build`, which `npm test` runs first).
 */
export default async function globalSetup(): Promise<void> {
  const panels = fs.readdirSync(path.join(REPO_ROOT, 'ui')).filter((d) => fs.existsSync(path.join(REPO_ROOT, 'ui', d, 'index.html')));
  const missing = panels.filter((p) => !fs.existsSync(path.join(REPO_ROOT, 'dist', 'ui', `${p}.html`)));
  // A missing panel fails only the tests that open it (its ui:// resource is then not registered).
  if (missing.length) console.warn(`panels not built (${missing.join(', ')}): run \`npm run build\` before \`npx playwright test\``);
  const root = path.join(REPO_ROOT, 'e2e', 'host');
  await build({
    configFile: false,
    root,
    base: '/',
    logLevel: 'warn',
    build: {
      outDir: HOST_DIST,
      emptyOutDir: true,
      minify: false,
      reportCompressedSize: false,
      rollupOptions: { input: { host: path.join(root, 'host.html'), sandbox: path.join(root, 'sandbox.html') } },
    },
  });
}
