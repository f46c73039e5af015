import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitForEnrichment } from './enrichment-helpers.ts';
import { closeTestDatabase, demoFile, openTestDatabase, startTestServer } from './harness.ts';
import { resume, spawnCli, stdioServer as stdio, waitPaused } from './processes.ts';
import { APP, sendChunk, sha256 } from './upload-helpers.ts';

/** Crash windows, tested by killing a real server process at the critical instant (issue 10). */
describe('crash windows', () => {
  const dirs: string[] = [];
  const tmp = (prefix: string): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    for (const d of dirs) {
      await closeTestDatabase(d);
      fs.rmSync(d, { recursive: true, force: true });
    }
  });
  const tenant = async (env: Record<string, string>): Promise<Record<string, string>> => {
    const r = await spawnCli(['tenant', 'create', '--name', 'Faults', '--json'], env).exited;
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as Record<string, string>;
  };

  it('upload complete killed between assembly and import: a retry of complete imports the file', async () => {
    const dataDir = tmp('atelier-upload-crash-');
    await openTestDatabase(dataDir);
    const pd = tmp('atelier-pause-');
    const env = { ATELIER_DATA_DIR: dataDir };
    const t = await tenant(env);
    const bytes = demoFile('images/nature/silver_fir.jpg');
    // a short completion lease: the retry below waits for the killed process's lease to lapse (≤ 3 s)
    const first = await stdio({
      ...env,
      ATELIER_API_KEY: t.api_key!,
      ATELIER_TEST_PAUSE_AT: 'upload-import',
      ATELIER_TEST_PAUSE_DIR: pd,
      ATELIER_UPLOAD_COMPLETE_LEASE_MS: '3000',
    });
    const b = await first.c.call(APP, 'begin', { filename: 'silver_fir.jpg', size_bytes: bytes.length, sha256: sha256(bytes) });
    const id = b.structured.upload_id as string;
    const count = b.structured.chunk_count as number;
    for (let i = 0; i < count; i++)
      expect((await sendChunk(first.c, id, bytes, b.structured.chunk_size_bytes as number, i)).error).toBeUndefined();
    void first.c.call(APP, 'complete', { upload_id: id }).catch(() => undefined);
    await waitPaused(pd, 'upload-import');
    process.kill(first.pid, 'SIGKILL');
    await first.close().catch(() => undefined);

    const second = await stdio({ ...env, ATELIER_API_KEY: t.api_key! });
    try {
      const retry = await second.c.call(APP, 'complete', { upload_id: id });
      expect(retry.error).toBeUndefined();
      expect(retry.structured).toMatchObject({
        session: { status: 'imported' },
        asset: { name: 'silver_fir.jpg', width: expect.any(Number) },
      });
      const found = await second.c.call('svc_asset_library', 'search', { theme_id: t.theme_id, query: 'silver_fir', mode: 'filename' });
      expect((found.structured.assets as { id: string }[]).map((a) => a.id)).toEqual([
        (retry.structured.asset as { asset_id: string }).asset_id,
      ]);
    } finally {
      await second.close();
    }
  }, 120_000);
});

describe('enrichment re-runs', () => {
  it('a metadata update while analyze runs is not lost: similar with the new category finds the asset', async () => {
    const pd = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pause-'));
    const srv = await startTestServer({ env: { ATELIER_TEST_PAUSE_AT: 'enrichment-analyze', ATELIER_TEST_PAUSE_DIR: pd } });
    try {
      const c = await srv.connect();
      const theme = srv.tenant.theme_id;
      const imp = (file: string) =>
        c.call('svc_asset_import', 'import', {
          data: demoFile(`images/nature/${file}`).toString('base64'),
          mime_type: 'image/jpeg',
          filename: file,
        });
      const fir = await imp('silver_fir.jpg');
      // The analysis of the fir is running (paused before it writes) when its category changes.
      await waitPaused(pd, 'enrichment-analyze');
      const upd = await c.call('svc_asset_manage', 'update', { asset_id: fir.structured.asset_id, category: 'texture' });
      expect(upd.error).toBeUndefined();
      resume(pd, 'enrichment-analyze');
      // The source: a resized copy of the fir (other bytes, a near duplicate by looks, so a match however
      // small the library). Only the fir's vector metadata, written from the updated row, carries 'texture'.
      const copy = await (
        await import('sharp')
      )
        .default(demoFile('images/nature/silver_fir.jpg'))
        .resize(400)
        .jpeg({ quality: 70 })
        .toBuffer();
      const src = await c.call('svc_asset_import', 'import', {
        data: copy.toString('base64'),
        mime_type: 'image/jpeg',
        filename: 'fir-copy.jpg',
      });
      await waitForEnrichment(c, theme);
      const r = await c.call('svc_asset_library', 'search', {
        theme_id: theme,
        mode: 'similar',
        similar_to_asset_id: src.structured.asset_id,
        category: 'texture',
      });
      expect((r.structured.assets as { id: string }[]).map((a) => a.id)).toEqual([fir.structured.asset_id]);
    } finally {
      await srv.close();
      fs.rmSync(pd, { recursive: true, force: true });
    }
  }, 120_000);
});
