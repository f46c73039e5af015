import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { createLogger } from '../../server/log.ts';
import { createTenant, createWorkspace, type TenantBundle } from '../../server/tenancy/admin.ts';
import { blobShaOf, demoFile, queryDataDir, startTestServer, type TestClient, type TestServer } from './harness.ts';

const PHOTO = demoFile('images/nature/prairie_falcon.jpg');
/** The key of a blob URL before issue 36: the first 128 bits of the bytes' sha256, base64url. */
const oldKey = (sha256: string): string => Buffer.from(sha256.slice(0, 32), 'hex').toString('base64url');

/**
 * Issue 36 finding 3: public blob keys reveal nothing across tenants. A key is per tenant (an HMAC of
 * the content hash under the tenant's secret), so the same bytes have unrelated URLs in two tenants,
 * `still_served` speaks of the tenant's own assets only, and a delete takes the tenant's URL down
 * unless the tenant itself still holds the bytes.
 */
describe('public blob keys are per tenant', () => {
  let srv: TestServer;
  let base: string;
  let a: TestClient;
  const importPhoto = async (client: TestClient, workspaceId?: string): Promise<{ id: string; url: string }> => {
    const r = await client.call('svc_asset_import', 'import', {
      data: PHOTO.toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'falcon.jpg',
      ...(workspaceId ? { workspace_id: workspaceId } : {}),
    });
    expect(r.error).toBeUndefined();
    return { id: r.structured.asset_id as string, url: r.structured.url as string };
  };
  const status = async (url: string): Promise<number> => (await fetch(url, { redirect: 'manual' })).status;
  const tenant = async (name: string): Promise<{ bundle: TenantBundle; client: TestClient }> => {
    const bundle = await createTenant(srv.app.library.tenancy, name);
    return { bundle, client: await srv.connect(bundle.api_key) };
  };
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    base = (await srv.listen()).url;
    a = await srv.connect();
  });
  afterAll(async () => srv.close());

  it('a key computed from known bytes answers like a key never issued; two tenants get unrelated URLs for the same bytes', async () => {
    const mine = await importPhoto(a);
    expect(await status(mine.url)).toBe(200);
    const fromBytes = createHash('sha256').update(PHOTO).digest('hex');
    const stored = await blobShaOf(srv, mine.url);
    const answer = async (url: string) => {
      const res = await fetch(url, { redirect: 'manual' });
      return { status: res.status, type: res.headers.get('content-type'), etag: res.headers.get('etag'), body: await res.text() };
    };
    // each probe answers exactly as the same form with a key nobody was ever given
    const probes = [
      [`${base}/a/${oldKey(fromBytes)}.jpg`, `${base}/a/AAAAAAAAAAAAAAAAAAAAAA.jpg`],
      [`${base}/a/${oldKey(stored)}.jpg`, `${base}/a/AAAAAAAAAAAAAAAAAAAAAA.jpg`],
      [`${base}/cdn/${stored}.jpg`, `${base}/cdn/${'0'.repeat(64)}.jpg`],
    ];
    for (const [probe, never] of probes) {
      const got = await answer(probe!);
      expect(got.status).toBe(404);
      expect({ probe, ...got }).toEqual({ probe, ...(await answer(never!)) });
    }

    const b = await tenant('Tenant B');
    const theirs = await importPhoto(b.client);
    expect(await blobShaOf(srv, theirs.url)).toBe(stored); // one stored copy: deduplicated across tenants
    const key = (url: string): string => /\/a\/([A-Za-z0-9_-]{22})\.jpg$/.exec(url)![1]!;
    expect(key(theirs.url)).not.toBe(key(mine.url));
    expect(await status(theirs.url)).toBe(200);
    expect(await status(mine.url)).toBe(200);
  });

  it('a tenant that imports and deletes bytes another tenant holds hears nothing of it, and its URL stops answering', async () => {
    const b = await tenant('Tenant B, importing A’s photo');
    const aliceUrl = (await importPhoto(a)).url; // the photo of the first case (deduplicated) or a new import
    const theirs = await importPhoto(b.client);
    expect(await status(theirs.url)).toBe(200);
    const r = await b.client.call('svc_asset_manage', 'delete', { asset_ids: [theirs.id] });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({ deleted: [{ asset_id: theirs.id }], still_served: [] });
    expect(r.text).not.toContain('Still served');
    expect(r.text).not.toContain(aliceUrl);
    expect(await status(theirs.url)).toBe(404);
    expect(await status(aliceUrl)).toBe(200);
  });

  it('within a tenant, identical bytes share a URL: still_served names it until the tenant’s last copy goes', async () => {
    const t = await tenant('Two workspaces');
    const second = await createWorkspace(srv.app.library.tenancy, t.bundle.tenant_id, 'Outlet');
    const one = await importPhoto(t.client, t.bundle.workspace_id);
    const two = await importPhoto(t.client, second.workspace_id);
    expect(two.url).toBe(one.url);
    // another tenant holding the bytes keeps nothing of this tenant's alive
    const other = await tenant('Holder of the same bytes');
    const held = await importPhoto(other.client);

    const first = await t.client.call('svc_asset_manage', 'delete', { workspace_id: t.bundle.workspace_id, asset_ids: [one.id] });
    expect(first.structured).toMatchObject({ deleted: [{ asset_id: one.id, url: one.url }], still_served: [one.url] });
    expect(first.text).toContain(`Still served because another asset of yours has identical bytes: ${one.url}`);
    expect(await status(one.url)).toBe(200);

    const last = await t.client.call('svc_asset_manage', 'delete', { workspace_id: second.workspace_id, asset_ids: [two.id] });
    expect(last.structured).toMatchObject({ deleted: [{ asset_id: two.id }], still_served: [] });
    expect(await status(one.url)).toBe(404);
    expect(await status(held.url)).toBe(200);
  });

  it('rows stored before public keys get theirs when a server starts; the sha-derived URLs they had stop answering', async () => {
    const t = await tenant('Stored before the upgrade');
    const before = await importPhoto(t.client);
    const thumb = (await t.client.call('svc_asset_library', 'search', { theme_id: t.bundle.theme_id })).structured.assets as {
      thumbnail_url: string;
    }[];
    const sha = await blobShaOf(srv, before.url);
    // what migration 0062 / PG 0020 leaves: no tenant secret, no keys
    await queryDataDir(
      srv.config.dataDir,
      `UPDATE asset_renditions SET blob_key = NULL WHERE asset_seq IN (SELECT seq FROM assets WHERE tenant_id = '${t.bundle.tenant_id}');
       UPDATE assets SET blob_key = NULL WHERE tenant_id = '${t.bundle.tenant_id}';
       UPDATE tenants SET blob_secret = NULL WHERE id = '${t.bundle.tenant_id}'`,
      { write: true },
    );
    // a server starting on the data dir fills them before it serves
    const second = await buildApp(srv.config, createLogger('silent'));
    await second.close();
    const after = (await t.client.call('svc_assets', 'view', { asset_id: before.id })).structured.url as string;
    expect(after).toMatch(/\/a\/[A-Za-z0-9_-]{22}\.jpg$/);
    expect(after).not.toBe(before.url);
    expect(await status(after)).toBe(200);
    expect(await blobShaOf(srv, after)).toBe(sha);
    const secret = await queryDataDir<{ s: string }>(
      srv.config.dataDir,
      `SELECT blob_secret AS s FROM tenants WHERE id = '${t.bundle.tenant_id}'`,
    );
    expect(secret[0]!.s).toMatch(/^[0-9a-f]{64}$/);
    for (const old of [before.url, thumb[0]!.thumbnail_url, `${base}/a/${oldKey(sha)}.jpg`]) expect(await status(old)).toBe(404);
  });
});
