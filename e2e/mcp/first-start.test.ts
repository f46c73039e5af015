/**
 * `atelier start` on a fresh data dir (issue 34 item 4): the server listens before the demo is seeded,
 * so `/healthz` answers and the banner (MCP URL, demo key) is printed while the first demo photo is being
 * stored (held there by the `import-insert` pause point); the library's count follows once the seed is done.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTestDatabase, openTestDatabase } from './harness.ts';
import { freePort, pauseDir, resume, spawnCli, waitPaused, type Child } from './processes.ts';

describe('first start (atelier start)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-first-'));
  let child: Child | null = null;
  afterAll(async () => {
    child?.proc.kill('SIGKILL');
    await child?.exited;
    await closeTestDatabase(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /healthz and prints the banner while the demo is being seeded, then the library count', async () => {
    await openTestDatabase(dataDir);
    const port = await freePort();
    const pd = pauseDir();
    child = spawnCli(['start'], {
      ATELIER_DATA_DIR: dataDir,
      ATELIER_PORT: String(port),
      // the seed is under test, not the analysis that follows it (it would take the CPU the other test files need)
      ATELIER_ENRICHMENT: '0',
      ATELIER_TEST_PAUSE_AT: 'import-insert',
      ATELIER_TEST_PAUSE_DIR: pd,
    });
    let stderr = '';
    child.proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await waitPaused(pd, 'import-insert', 1, 120_000);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, service: 'atelier' });
    expect(stderr).toMatch(new RegExp(`MCP URL:\\s+http://127\\.0\\.0\\.1:${port}/mcp`));
    expect(stderr).toMatch(/API key:\s+atl_\S+\s+\(shown once/);
    expect(stderr).toContain('demo library: seeding now');
    expect(stderr).not.toMatch(/imported now/);
    resume(pd, 'import-insert');
    const until = Date.now() + 240_000;
    while (!/imported now/.test(stderr) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    expect(stderr).toMatch(/demo library: \d+ imported now, 0 already present\n/);
  }, 300_000);
});
