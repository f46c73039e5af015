import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/log.ts';
import { backendEnv, connectApp, ON_S3, REPO_ROOT } from './harness.ts';
import { resume, spawnCli, waitPaused } from './processes.ts';

/**
 * The blob GC against concurrent writers: real `atelier` processes on one data dir and one blob store
 * (the local directory, or an S3 prefix under `npm run test:scale`), raced at pause points.
 */
describe('blob GC against concurrent writers (processes on one data dir and blob store)', () => {
  const dirs: string[] = [];
  const apps: App[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  const setup = async (): Promise<{ dataDir: string; pd: string; env: Record<string, string>; t: Record<string, string>; probe: App }> => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-gc-race-'));
    const pd = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pause-'));
    dirs.push(dataDir, pd);
    const env = { ATELIER_DATA_DIR: dataDir, ATELIER_PORT: '0', ...backendEnv(path.basename(dataDir)) };
    const r = await spawnCli(['tenant', 'create', '--name', 'GC', '--json'], env).exited;
    expect(r.code, r.stderr).toBe(0);
    const probe = await buildApp(loadConfig({ ...env, ATELIER_LOG_LEVEL: 'silent' }), createLogger('silent'));
    apps.push(probe);
    return { dataDir, pd, env, t: JSON.parse(r.stdout) as Record<string, string>, probe };
  };
  const FILE = path.join(REPO_ROOT, 'demo/images/nature/silver_fir.jpg');
  const importCli = async (env: Record<string, string>): Promise<{ asset_id: string }> => {
    const r = await spawnCli(['import', FILE, '--json'], env).exited;
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { assets: { asset_id: string }[] }).assets[0]!;
  };
  /** sha256 of the original and every rendition of an asset. */
  const blobsOf = async (probe: App, t: Record<string, string>, assetId: string): Promise<string[]> => {
    const row = (await probe.stores.assets.byId({ tenantId: t.tenant_id!, workspaceId: t.workspace_id! }, assetId))!;
    return [...new Set([row.sha256, ...(await probe.stores.assets.renditions(row.seq)).map((r) => r.sha256)])];
  };
  const missing = async (probe: App, shas: string[]): Promise<string[]> => {
    const out: string[] = [];
    for (const s of shas) if (!(await probe.library.blobs.has(s))) out.push(s);
    return out;
  };
  /** An orphan: imported, then deleted; its blobs stay until the GC. */
  const orphan = async (probe: App, env: Record<string, string>, apiKey: string): Promise<void> => {
    const first = await importCli(env);
    const c = await connectApp(probe, apiKey);
    expect((await c.call('svc_asset_manage', 'delete', { asset_ids: [first.asset_id] })).error).toBeUndefined();
    await c.close();
  };

  it('never deletes a blob that a row committed during the pass references', async () => {
    const { pd, env, t, probe } = await setup();
    await orphan(probe, env, t.api_key!);
    // The GC decides the blobs are unreferenced and old enough, and is about to remove them …
    const gc = spawnCli(['gc', '--grace-minutes', '0', '--json'], {
      ...env,
      ATELIER_TEST_PAUSE_AT: 'blob-gc-remove',
      ATELIER_TEST_PAUSE_DIR: pd,
    });
    await waitPaused(pd, 'blob-gc-remove');
    // … when another process imports the same bytes again (its row now references them).
    const again = await importCli(env);
    resume(pd, 'blob-gc-remove');
    expect((await gc.exited).code).toBe(0);
    const c = await connectApp(probe, t.api_key!);
    const view = await c.call('svc_assets', 'view', { asset_id: again.asset_id });
    expect(view.error).toBeUndefined();
    expect(view.structured).toMatchObject({ asset_id: again.asset_id, width: expect.any(Number) });
    // and every blob the new row names is still stored (original and renditions)
    const shas = await blobsOf(probe, t, again.asset_id);
    expect(shas.length).toBeGreaterThan(1);
    expect(await missing(probe, shas)).toEqual([]);
  }, 120_000);

  it('a writer stalled between its put and its commit past the grace period puts back what a GC pass removed', async () => {
    const { pd, env, t, probe } = await setup();
    await orphan(probe, env, t.api_key!);
    // The writer renews the orphan's bytes, then stalls before inserting its row …
    const imp = spawnCli(['import', FILE, '--json'], { ...env, ATELIER_TEST_PAUSE_AT: 'import-insert', ATELIER_TEST_PAUSE_DIR: pd });
    await waitPaused(pd, 'import-insert');
    // … longer than the grace period (0 here): a whole GC pass removes the bytes nobody references yet.
    const gc = await spawnCli(['gc', '--grace-minutes', '0', '--json'], env).exited;
    expect(gc.code, gc.stderr).toBe(0);
    expect((JSON.parse(gc.stdout) as { removed: number }).removed).toBeGreaterThan(1);
    resume(pd, 'import-insert');
    const r = await imp.exited;
    expect(r.code, r.stderr).toBe(0);
    const again = (JSON.parse(r.stdout) as { assets: { asset_id: string }[] }).assets[0]!;
    const shas = await blobsOf(probe, t, again.asset_id);
    expect(shas.length).toBeGreaterThan(1);
    expect(await missing(probe, shas)).toEqual([]);
  }, 120_000);

  it.runIf(ON_S3)(
    "S3: a row committed between the pass's decision and its delete gets its bytes back from quarantine",
    async () => {
      const { pd, env, t, probe } = await setup();
      await orphan(probe, env, t.api_key!);
      // The pass has decided (old, unreferenced) and copied the blob to quarantine; its delete comes next …
      const gc = spawnCli(['gc', '--grace-minutes', '0', '--json'], {
        ...env,
        ATELIER_TEST_PAUSE_AT: 'blob-gc-quarantined',
        ATELIER_TEST_PAUSE_DIR: pd,
      });
      await waitPaused(pd, 'blob-gc-quarantined');
      // … when an import of the same bytes renews them, commits its row and finds them still there.
      const again = await importCli(env);
      expect(await missing(probe, await blobsOf(probe, t, again.asset_id))).toEqual([]);
      resume(pd, 'blob-gc-quarantined');
      const done = await gc.exited;
      expect(done.code, done.stderr).toBe(0);
      // The pass deleted the key, then saw the row when it asked again, and put the bytes back.
      expect(await missing(probe, await blobsOf(probe, t, again.asset_id))).toEqual([]);
      const left: string[] = [];
      for await (const l of probe.library.blobs.leftovers()) left.push(l.name);
      expect(left).toEqual([]);
    },
    120_000,
  );

  it.runIf(ON_S3)(
    'S3: a pass deciding from a HEAD taken before another pass removed the orphan leaves a fresh write its bytes',
    async () => {
      const { pd, env, t, probe } = await setup();
      await orphan(probe, env, t.api_key!);
      // Pass G2 has HEADed the old orphan and decided to remove it …
      const g2 = spawnCli(['gc', '--grace-minutes', '0', '--json'], {
        ...env,
        ATELIER_TEST_PAUSE_AT: 'blob-gc-decided',
        ATELIER_TEST_PAUSE_DIR: pd,
      });
      await waitPaused(pd, 'blob-gc-decided');
      // … pass G1 removes it meanwhile, and a writer puts the same bytes fresh (nothing to renew), then stalls
      // before its insert …
      const g1 = await spawnCli(['gc', '--grace-minutes', '0', '--json'], env).exited;
      expect(g1.code, g1.stderr).toBe(0);
      expect((JSON.parse(g1.stdout) as { removed: number }).removed).toBeGreaterThan(1);
      const imp = spawnCli(['import', FILE, '--json'], { ...env, ATELIER_TEST_PAUSE_AT: 'import-insert', ATELIER_TEST_PAUSE_DIR: pd });
      await waitPaused(pd, 'import-insert');
      // … G2 goes on from its stale HEAD: it copies the fresh bytes aside, deletes them, finds no row yet …
      resume(pd, 'blob-gc-decided');
      const done = await g2.exited;
      expect(done.code, done.stderr).toBe(0);
      // … and the writer's row commits: every blob it names is there afterwards.
      resume(pd, 'import-insert');
      const r = await imp.exited;
      expect(r.code, r.stderr).toBe(0);
      const again = (JSON.parse(r.stdout) as { assets: { asset_id: string }[] }).assets[0]!;
      expect(await missing(probe, await blobsOf(probe, t, again.asset_id))).toEqual([]);
    },
    120_000,
  );

  it.runIf(ON_S3)(
    "S3: a second pass leaves a live pass's quarantine copy in place, so the live pass can still restore from it",
    async () => {
      const { pd, env, t, probe } = await setup();
      await orphan(probe, env, t.api_key!);
      // G2 has copied the orphan to quarantine; its delete comes next …
      const g2 = spawnCli(['gc', '--grace-minutes', '0', '--json'], {
        ...env,
        ATELIER_TEST_PAUSE_AT: 'blob-gc-quarantined',
        ATELIER_TEST_PAUSE_DIR: pd,
      });
      await waitPaused(pd, 'blob-gc-quarantined');
      // … a writer renews the bytes and commits a row naming them …
      const again = await importCli(env);
      // … and a pass of another process (default grace) finds the young quarantine copy of a referenced blob.
      const g1 = await spawnCli(['gc', '--json'], env).exited;
      expect(g1.code, g1.stderr).toBe(0);
      // G2 deletes the key, sees the row, and restores from its copy: the copy must still be there.
      resume(pd, 'blob-gc-quarantined');
      const done = await g2.exited;
      expect(done.code, done.stderr).toBe(0);
      expect(await missing(probe, await blobsOf(probe, t, again.asset_id))).toEqual([]);
      const left: string[] = [];
      for await (const l of probe.library.blobs.leftovers()) left.push(l.name);
      expect(left).toEqual([]);
    },
    120_000,
  );

  it.skipIf(ON_S3)(
    'collects the temp file of a write killed before its rename, once past the grace period',
    async () => {
      const { dataDir, pd, env } = await setup();
      const imp = spawnCli(['import', FILE, '--json'], { ...env, ATELIER_TEST_PAUSE_AT: 'blob-put-rename', ATELIER_TEST_PAUSE_DIR: pd });
      await waitPaused(pd, 'blob-put-rename');
      imp.proc.kill('SIGKILL');
      await imp.exited;
      const temps = (): string[] =>
        (fs.readdirSync(path.join(dataDir, 'blobs'), { recursive: true }) as string[]).filter((f) => f.endsWith('.tmp'));
      expect(temps()).toHaveLength(1);
      const kept = await spawnCli(['gc', '--json'], env).exited; // default grace (1 h): a fresh temp file may belong to a live write
      expect(kept.code).toBe(0);
      expect(temps()).toHaveLength(1);
      const gc = await spawnCli(['gc', '--grace-minutes', '0', '--json'], env).exited;
      expect(gc.code).toBe(0);
      expect(temps()).toEqual([]);
      expect(JSON.parse(gc.stdout)).toMatchObject({ removed: 1 });
    },
    120_000,
  );
});
