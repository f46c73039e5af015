/** One version everywhere: `atelier --version` and MCP `serverInfo.version` both say what package.json says. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestServer } from './harness.ts';
import { CLI } from './processes.ts';

const version = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('version', () => {
  it('atelier --version and -V print the package version', async () => {
    for (const flag of ['--version', '-V']) {
      const { stdout } = await promisify(execFile)(process.execPath, [CLI, flag], { cwd: REPO_ROOT });
      expect(stdout.trim()).toBe(version);
    }
  });

  it('the MCP initialize answer carries the same version', async () => {
    const srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    try {
      const c = await srv.connect();
      expect(c.client.getServerVersion()).toMatchObject({ name: 'atelier', version });
    } finally {
      await srv.close();
    }
  });
});
