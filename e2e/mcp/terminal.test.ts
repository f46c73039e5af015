import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { backendEnv, demoFile, REPO_ROOT, wrapClient } from './harness.ts';
import { CLI } from './processes.ts';

const run = promisify(execFile);

/** Issue 34 item 3: stderr of the server holds structured log lines only, OCR engine messages included. */
describe('a clean log channel', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-terminal-'));
  const env = { ...process.env, ...backendEnv(path.basename(dataDir)), ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0' };
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('the OCR engine’s native messages arrive as JSON log lines, not raw stderr', { timeout: 240_000 }, async () => {
    const t = JSON.parse(
      (await run(process.execPath, [CLI, 'tenant', 'create', '--name', 'T', '--json'], { env, cwd: REPO_ROOT })).stdout,
    ) as {
      api_key: string;
      theme_id: string;
    };
    const child = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio'],
      // debug: the native messages are logged at debug level, so they show up here as JSON
      env: { ...env, ATELIER_API_KEY: t.api_key, ATELIER_LOG_LEVEL: 'debug' },
      stderr: 'pipe',
      cwd: REPO_ROOT,
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'terminal-test', version: '0' });
    await client.connect(child);
    const c = wrapClient(client);
    // Leptonica prints "Error in boxClipToRectangle: box outside rectangle" while reading this photo.
    const photo = demoFile('images/nature/tanners_ridge.jpg');
    const r = await c.call('svc_asset_import', 'import', { data: photo.toString('base64'), mime_type: 'image/jpeg' });
    expect(r.error).toBeUndefined();
    const [asset] = await waitForEnrichment(c, t.theme_id, 180_000);
    expect(asset?.enrichment_status).toBe('done');
    await client.close();

    const lines = stderr.split('\n').filter((l) => l.trim() !== '');
    const raw = lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
    expect(raw).toEqual([]);
    const native = lines.map((l) => JSON.parse(l) as { mod?: string; native?: string }).filter((l) => l.native);
    expect(native.map((l) => l.native)).toContainEqual(expect.stringMatching(/boxClipToRectangle/));
    expect(native.every((l) => l.mod === 'ocr')).toBe(true);
  });
});
