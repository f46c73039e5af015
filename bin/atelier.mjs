#!/usr/bin/env node
// Entry point of the `atelier` CLI.
// - Installed package (the tarball unpacked + `npm ci --omit=dev`, or `npm install atelier-*.tgz`; the Docker
//   image): runs the compiled JavaScript in dist/server/ that `npm pack` built (scripts/build.mjs); the
//   TypeScript sources are not shipped.
// - Checkout (`npm ci && npm start`, tests): runs the TypeScript sources through tsx (a devDependency), so
//   an edit takes effect without a build step and a stale dist/ is never run by accident. On a Node older
//   than `engines` allows, scripts/modern-node.mjs runs the command again on Node 24 from the npm registry.
import fs from 'node:fs';

const source = new URL('../server/cli/index.ts', import.meta.url);
if (fs.existsSync(source)) {
  await import('../scripts/modern-node.mjs');
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(
      'atelier: running from a checkout needs the dev dependencies (npm ci, not npm ci --omit=dev); to run without them, install the package built by npm pack (see README)\n',
    );
    process.exit(2);
  }
  register();
  await import(source.href);
} else {
  const { atLeast, NODE_FLOOR } = await import('./node-floor.mjs');
  if (!atLeast(process.versions.node)) {
    process.stderr.write(`atelier: needs Node ${NODE_FLOOR} or newer; this is Node ${process.versions.node} (install Node 24 LTS)\n`);
    process.exit(2);
  }
  await import('../dist/server/cli/index.js');
}
