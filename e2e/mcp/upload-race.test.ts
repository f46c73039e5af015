import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTestDatabase, demoFile, openTestDatabase, type CallResult, type TestClient } from './harness.ts';
import { resume, spawnCli, stdioServer, waitPaused } from './processes.ts';
import { APP, sendChunk, sha256 } from './upload-helpers.ts';

/**
 * One upload, two server processes on one database (issue 35 item 6): the completion is a lease in the
 * upload's row, so process A completing it (held at the `upload-import` pause point, after assembly,
 * before the import) keeps process B from completing or aborting it underneath.
 */
describe('upload completion across processes', () => {
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

  /** Two processes on a fresh data dir; A pauses every complete before its import. Returns them and a sent-but-not-completed upload. */
  async function twoProcesses(): Promise<{
    a: Awaited<ReturnType<typeof stdioServer>>;
    b: Awaited<ReturnType<typeof stdioServer>>;
    pd: string;
    id: string;
    theme: string;
  }> {
    const dataDir = tmp('atelier-upload-race-');
    await openTestDatabase(dataDir);
    const pd = tmp('atelier-pause-');
    const env = { ATELIER_DATA_DIR: dataDir };
    const r = await spawnCli(['tenant', 'create', '--name', 'Race', '--json'], env).exited;
    expect(r.code).toBe(0);
    const t = JSON.parse(r.stdout) as Record<string, string>;
    const a = await stdioServer({
      ...env,
      ATELIER_API_KEY: t.api_key!,
      ATELIER_TEST_PAUSE_AT: 'upload-import',
      ATELIER_TEST_PAUSE_DIR: pd,
    });
    const b = await stdioServer({ ...env, ATELIER_API_KEY: t.api_key! });
    const bytes = demoFile('images/nature/silver_fir.jpg');
    const s = await a.c.call(APP, 'begin', { filename: 'silver_fir.jpg', size_bytes: bytes.length, sha256: sha256(bytes) });
    const id = s.structured.upload_id as string;
    for (let i = 0; i < (s.structured.chunk_count as number); i++)
      expect((await sendChunk(a.c, id, bytes, s.structured.chunk_size_bytes as number, i)).error).toBeUndefined();
    return { a, b, pd, id, theme: t.theme_id! };
  }

  const assetIds = async (c: TestClient, theme: string): Promise<string[]> =>
    (
      (await c.call('svc_asset_library', 'search', { theme_id: theme, query: 'silver_fir', mode: 'filename' })).structured.assets as {
        id: string;
      }[]
    ).map((x) => x.id);

  it('two processes complete the same upload at once: the second waits for the first and answers with the same asset', async () => {
    const { a, b, pd, id, theme } = await twoProcesses();
    try {
      const first = a.c.call(APP, 'complete', { upload_id: id });
      await waitPaused(pd, 'upload-import');
      let secondDone = false;
      const second = b.c.call(APP, 'complete', { upload_id: id }).then((r: CallResult) => ((secondDone = true), r));
      // A holds the completion (renewing its lease): B neither imports nor answers meanwhile
      await new Promise((r) => setTimeout(r, 2500));
      expect(secondDone).toBe(false);
      resume(pd, 'upload-import');
      const [ra, rb] = await Promise.all([first, second]);
      expect(ra.error).toBeUndefined();
      expect(rb.error).toBeUndefined();
      const assetId = (ra.structured.asset as { asset_id: string }).asset_id;
      expect(rb.structured).toMatchObject({ session: { status: 'imported', asset_id: assetId }, asset: { asset_id: assetId } });
      expect(await assetIds(b.c, theme)).toEqual([assetId]);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);

  it('an abort on one process while another completes answers conflict; the completion imports and stays imported', async () => {
    const { a, b, pd, id, theme } = await twoProcesses();
    try {
      const first = a.c.call(APP, 'complete', { upload_id: id });
      await waitPaused(pd, 'upload-import');
      const abort = await b.c.call(APP, 'abort', { upload_id: id });
      expect(abort.error).toMatchObject({ code: 'conflict', field: 'args.upload_id' });
      expect(abort.error?.message).toContain('being completed');
      resume(pd, 'upload-import');
      const done = await first;
      expect(done.error).toBeUndefined();
      const assetId = (done.structured.asset as { asset_id: string }).asset_id;
      const status = await b.c.call(APP, 'status', { upload_id: id });
      expect(status.structured).toMatchObject({ status: 'imported', asset_id: assetId });
      expect(await assetIds(b.c, theme)).toEqual([assetId]);
    } finally {
      await a.close();
      await b.close();
    }
  }, 120_000);
});
