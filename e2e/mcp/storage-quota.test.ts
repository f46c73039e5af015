import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../server/app.ts';
import { createLogger } from '../../server/log.ts';
import { createApiKey, createTenant, createWorkspace } from '../../server/tenancy/admin.ts';
import {
  backendEnv,
  connectApp,
  ON_PGLITE,
  REPO_ROOT,
  startTestServer,
  tempConfig,
  type CallResult,
  type TestClient,
  type TestServer,
} from './harness.ts';
import { CLI, resume, waitPaused } from './processes.ts';
import { APP, uploadFile } from './upload-helpers.ts';

/**
 * Per-tenant storage quota (issue 36 finding 10). Noise PNGs do not compress: a 256 × 256 one is ~197 KB
 * and stores ~277 KB with its renditions, a 128 × 128 one ~49 KB (~70 KB stored). The quota of 400 000
 * bytes holds one 256 × 256 image, not two.
 */
const QUOTA = 400_000;

/** A deterministic noise PNG (LCG seeded by `seed`), `side` px square. */
async function noisePng(side: number, seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(side * side * 3);
  let x = seed >>> 0;
  for (let i = 0; i < raw.length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    raw[i] = x >>> 24;
  }
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();
}

const importPng = (c: TestClient, bytes: Buffer): Promise<CallResult> =>
  c.call('svc_asset_import', 'import', { data: bytes.toString('base64'), mime_type: 'image/png' });

interface Storage {
  quota_bytes: number | null;
  quota_source: 'tenant' | 'default';
  used_bytes: number;
  asset_bytes: number;
  staged_bytes: number;
}
const storageOf = async (c: TestClient): Promise<Storage> => (await c.call('svc_discover', 'scope', {})).structured.storage as Storage;

describe('per-tenant storage quota', () => {
  let srv: TestServer;
  let big1: Buffer;
  let big2: Buffer;
  let small: Buffer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_TENANT_QUOTA_BYTES: String(QUOTA) } });
    [big1, big2, small] = await Promise.all([noisePng(256, 1), noisePng(256, 2), noisePng(128, 3)]);
  });
  afterAll(async () => srv.close());

  it('refuses the import past the quota with quota_exceeded, leaves other tenants alone, and frees quota on delete', async () => {
    const a = await srv.connect();
    const other = await srv.connect((await createTenant(srv.app.library.tenancy, 'Other tenant')).api_key);
    const first = await importPng(a, big1);
    expect(first.error).toBeUndefined();
    const used = await storageOf(a);
    expect(used).toMatchObject({ quota_bytes: QUOTA, staged_bytes: 0 });
    expect(used.used_bytes).toBe(used.asset_bytes);
    expect(used.asset_bytes).toBeGreaterThan(big1.length); // original and renditions
    expect(used.used_bytes + big2.length).toBeGreaterThan(QUOTA); // the fixture's premise

    const refused = await importPng(a, big2);
    expect(refused.error).toMatchObject({
      code: 'quota_exceeded',
      field: 'args.data',
      details: { limit_bytes: QUOTA, used_bytes: used.used_bytes, requested_bytes: big2.length, staged_bytes: 0 },
    });
    expect(refused.error!.message).toContain(`${QUOTA}-byte quota`);
    expect(await storageOf(a)).toEqual(used); // nothing stored
    const total = await a.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id });
    expect(total.structured.total).toBe(1);

    // Another tenant's quota is its own.
    expect((await importPng(other, big2)).error).toBeUndefined();
    expect((await storageOf(a)).used_bytes).toBe(used.used_bytes);

    // Deleting frees the quota.
    const id = (first.structured as { asset_id: string }).asset_id;
    expect((await a.call('svc_asset_manage', 'delete', { asset_ids: [id] })).error).toBeUndefined();
    expect((await storageOf(a)).used_bytes).toBe(0);
    expect((await importPng(a, big2)).error).toBeUndefined();
  });

  it("an operator's per-tenant quota (atelier tenant quota set) overrides the default for that tenant only; default restores it", async () => {
    const t = await createTenant(srv.app.library.tenancy, 'Own quota');
    const c = await srv.connect(t.api_key);
    const env = {
      ...process.env,
      ...backendEnv(path.basename(srv.config.dataDir)),
      ATELIER_DATA_DIR: srv.config.dataDir,
      ATELIER_LOG_LEVEL: 'silent',
      ATELIER_TENANT_QUOTA_BYTES: String(QUOTA),
    };
    const quota = async (value: string): Promise<Record<string, unknown>> =>
      JSON.parse(
        (
          await promisify(execFile)(process.execPath, [CLI, 'tenant', 'quota', 'set', t.tenant_id, value, '--json'], {
            env,
            cwd: REPO_ROOT,
          })
        ).stdout,
      ) as Record<string, unknown>;
    expect(await storageOf(c)).toMatchObject({ quota_bytes: QUOTA, quota_source: 'default' });

    // Smaller than the default: the 128 px image fits, the 256 px one no longer does.
    expect(await quota('150000')).toEqual({ tenant_id: t.tenant_id, quota_bytes: 150_000, quota_source: 'tenant' });
    expect(await storageOf(c)).toMatchObject({ quota_bytes: 150_000, quota_source: 'tenant', used_bytes: 0 });
    const refused = await importPng(c, await noisePng(256, 11));
    expect(refused.error).toMatchObject({ code: 'quota_exceeded', details: { limit_bytes: 150_000 } });
    expect((await importPng(c, await noisePng(128, 12))).error).toBeUndefined();
    expect((await storageOf(await srv.connect())).quota_bytes).toBe(QUOTA); // other tenants keep the default

    // Unlimited: past the default quota.
    expect(await quota('unlimited')).toMatchObject({ quota_bytes: null, quota_source: 'tenant' });
    for (const seed of [13, 14]) expect((await importPng(c, await noisePng(256, seed))).error).toBeUndefined();
    const used = await storageOf(c);
    expect(used).toMatchObject({ quota_bytes: null, quota_source: 'tenant' });
    expect(used.used_bytes).toBeGreaterThan(QUOTA);

    // Back to the default, which the tenant is now over: the next import is refused.
    expect(await quota('default')).toMatchObject({ quota_bytes: QUOTA, quota_source: 'default' });
    expect((await importPng(c, await noisePng(128, 15))).error).toMatchObject({ code: 'quota_exceeded', details: { limit_bytes: QUOTA } });

    const bad = await promisify(execFile)(process.execPath, [CLI, 'tenant', 'quota', 'set', t.tenant_id, '10GB'], {
      env,
      cwd: REPO_ROOT,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining("'unlimited' or 'default'") });
  });

  it('counts uploads still receiving or staged, refuses a begin past the quota, and counts an imported attachment once', async () => {
    const t = await createTenant(srv.app.library.tenancy, 'Uploader');
    const c = await srv.connect(t.api_key);
    expect((await importPng(c, big1)).error).toBeUndefined();
    const used = (await storageOf(c)).used_bytes;
    const sha = createHash('sha256').update('not sent').digest('hex');
    const tooBig = await c.call(APP, 'begin', { filename: 'big.png', size_bytes: QUOTA - used + 1, sha256: sha });
    expect(tooBig.error).toMatchObject({
      code: 'quota_exceeded',
      field: 'args.size_bytes',
      details: { limit_bytes: QUOTA, used_bytes: used, requested_bytes: QUOTA - used + 1 },
    });
    // A session that fits is counted while it receives: an import that would fit without it is refused.
    const open = await c.call(APP, 'begin', { filename: 'big.png', size_bytes: QUOTA - used - small.length + 1, sha256: sha });
    expect(open.error).toBeUndefined();
    expect(await storageOf(c)).toMatchObject({ staged_bytes: QUOTA - used - small.length + 1 });
    expect((await importPng(c, small)).error).toMatchObject({
      code: 'quota_exceeded',
      details: { staged_bytes: QUOTA - used - small.length + 1 },
    });
    expect((await c.call(APP, 'abort', { upload_id: open.structured.upload_id })).error).toBeUndefined();
    expect((await storageOf(c)).staged_bytes).toBe(0);
    expect((await importPng(c, small)).error).toBeUndefined();
  });

  it('an upload whose stored asset would not fit stays staged: complete imports it once assets are deleted', async () => {
    const t = await createTenant(srv.app.library.tenancy, 'Completer');
    const c = await srv.connect(t.api_key);
    const [s1, s2] = await Promise.all([noisePng(128, 21), noisePng(128, 22)]);
    const smalls = [await importPng(c, s1), await importPng(c, s2)];
    const used = (await storageOf(c)).used_bytes;
    expect(used + big1.length).toBeLessThanOrEqual(QUOTA); // begin fits (declared size) …
    const { id, complete } = await uploadFile(c, big1, 'big.png');
    // … but the asset with its renditions does not
    expect(complete.error).toMatchObject({
      code: 'quota_exceeded',
      field: 'args.upload_id',
      details: { limit_bytes: QUOTA, staged_bytes: 0 },
    });
    expect((await c.call(APP, 'status', { upload_id: id })).structured).toMatchObject({ status: 'staged' });
    const firstId = (smalls[0]!.structured as { asset_id: string }).asset_id;
    expect((await c.call('svc_asset_manage', 'delete', { asset_ids: [firstId] })).error).toBeUndefined();
    const again = await c.call(APP, 'complete', { upload_id: id });
    expect(again.error).toBeUndefined();
    expect(again.structured).toMatchObject({ session: { status: 'imported' } });
    expect((await storageOf(c)).staged_bytes).toBe(0);
  });

  it('imports a staged attachment that fits without counting its staged bytes twice', async () => {
    const t = await createTenant(srv.app.library.tenancy, 'Attacher');
    const c = await srv.connect(t.api_key);
    const { id, complete } = await uploadFile(c, big1, 'big.png', { import: false });
    expect(complete.error).toBeUndefined();
    expect(await storageOf(c)).toMatchObject({ asset_bytes: 0, staged_bytes: big1.length });
    // staged (197 KB) + stored (277 KB) is over the quota; the stored asset alone is not
    const r = await c.call('svc_asset_import', 'import', { attachments: [{ attachment_id: id }] });
    expect(r.structured).toMatchObject({ imported: 1, failed: 0 });
    const after = await storageOf(c);
    expect(after.staged_bytes).toBe(0); // the attachment now counts as its asset
    expect(after.asset_bytes).toBeGreaterThan(big1.length);
  });
});

describe('storage quota under concurrent imports', () => {
  const dirs: string[] = [];
  const apps: App[] = [];
  let srv: TestServer;
  afterAll(async () => {
    for (const a of apps) await a.close();
    await srv?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('two imports into two workspaces of a tenant that each fit but not together, racing to their inserts from two processes: exactly one is stored', async () => {
    const pd = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-pause-'));
    dirs.push(pd);
    const env = {
      ATELIER_ENRICHMENT: '0',
      ATELIER_TENANT_QUOTA_BYTES: String(QUOTA),
      ATELIER_TEST_PAUSE_AT: 'import-insert',
      ATELIER_TEST_PAUSE_DIR: pd,
    };
    srv = await startTestServer({ env });
    // A second App on the same database stands for a second process (one PGlite is one session: the
    // PGlite run races two calls of one App, whose single connection serialises the transactions).
    let second = srv.app;
    if (!ON_PGLITE) {
      second = await buildApp(tempConfig(env, srv.config.dataDir), createLogger('silent'));
      apps.push(second);
    }
    // The two imports go to two workspaces of the tenant: the quota is the tenant's, and the inserts of
    // two workspaces do not wait for each other otherwise (PostgreSQL locks only the workspace's row).
    const ws2 = await createWorkspace(srv.app.library.tenancy, srv.tenant.tenant_id, 'Second', { grantKeys: false });
    const key2 = await createApiKey(srv.app.library.tenancy, srv.tenant.tenant_id, { workspaceIds: [ws2.workspace_id] });
    const a = await srv.connect();
    const b = await connectApp(second, key2.api_key);
    const [one, two] = await Promise.all([noisePng(256, 11), noisePng(256, 12)]);
    const calls = [importPng(a, one), importPng(b, two)];
    // Both have passed the early check and written their blobs: only their inserts are left.
    await waitPaused(pd, 'import-insert');
    const sha = (x: Buffer): string => createHash('sha256').update(x).digest('hex');
    for (;;) {
      if ((await srv.app.library.blobs.has(sha(one))) && (await srv.app.library.blobs.has(sha(two)))) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    resume(pd, 'import-insert');
    const results = await Promise.all(calls);
    expect(results.map((r) => r.error?.code ?? 'ok').sort()).toEqual(['ok', 'quota_exceeded']);
    const storage = await storageOf(a);
    expect(storage.used_bytes).toBeLessThanOrEqual(QUOTA);
    const totals = [
      (await a.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id })).structured.total,
      (await b.call('svc_asset_library', 'search', { theme_id: ws2.theme_id })).structured.total,
    ];
    expect(totals.sort()).toEqual([0, 1]);
    await b.close();
  }, 120_000);
});

describe('open-upload cap', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0', ATELIER_UPLOAD_MAX_OPEN: '1' } });
  });
  afterAll(async () => srv.close());

  it('counts a staged attachment that is not imported yet, and frees its place once imported', async () => {
    const c = await srv.connect();
    const png = await noisePng(64, 5);
    const { id, complete } = await uploadFile(c, png, 'staged.png', { import: false });
    expect(complete.error).toBeUndefined();
    const other = await noisePng(64, 6);
    const sha = createHash('sha256').update(other).digest('hex');
    const refused = await c.call(APP, 'begin', { filename: 'next.png', size_bytes: other.length, sha256: sha });
    expect(refused.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('1 uploads are already open') });
    expect((await c.call('svc_asset_import', 'import', { attachments: [{ attachment_id: id }] })).structured).toMatchObject({
      imported: 1,
    });
    expect((await c.call(APP, 'begin', { filename: 'next.png', size_bytes: other.length, sha256: sha })).error).toBeUndefined();
  });
});
