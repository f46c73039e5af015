#!/usr/bin/env node
// Entry point of the `atelier` CLI.
// - Installed package (`npm install atelier-*.tgz`, the Docker image): runs the compiled JavaScript in
//   dist/server/ that `npm pack` built (scripts/build.mjs); the TypeScript sources are not shipped.
// - Checkout (`npm ci && npm start`, tests): runs the TypeScript sources through tsx (a devDependency), so
//   an edit takes effect without a build step and a stale dist/ is never run by accident.
import fs from 'node:fs';

const source = new URL('../server/cli/index.ts', import.meta.url);
if (fs.existsSync(source)) {
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
  await import('../dist/server/cli/index.js');
}
