import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, createWorkspace, type TenantBundle } from '../../server/tenancy/admin.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

const FALCON = demoFile('images/nature/prairie_falcon.jpg').toString('base64');

describe('tenant and workspace scoping', () => {
  let srv: TestServer;
  let a: TestClient;
  let other: TenantBundle;
  let b: TestClient;
  let falconId: string;
  beforeAll(async () => {
    srv = await startTestServer();
    a = await srv.connect();
    const imp = await a.call('svc_asset_import', 'import', {
      data: FALCON,
      mime_type: 'image/jpeg',
      filename: 'falcon.jpg',
      tags: ['bird'],
    });
    falconId = imp.structured.asset_id as string;
    other = await createTenant(srv.app.library.tenancy, 'Other tenant');
    b = await srv.connect(other.api_key);
  });
  afterAll(async () => srv.close());

  it('never shows one tenant the assets of another: search, view, similar, theme', async () => {
    const search = await b.call('svc_asset_library', 'search', { theme_id: other.theme_id, query: 'falcon' });
    expect(search.structured.total).toBe(0);
    const browse = await b.call('svc_asset_library', 'search', { theme_id: other.theme_id });
    expect(browse.structured.total).toBe(0);
    const view = await b.call('svc_assets', 'view', { asset_id: falconId });
    expect(view.error).toMatchObject({ code: 'not_found', field: 'args.asset_id' });
    const similar = await b.call('svc_asset_library', 'search', {
      theme_id: other.theme_id,
      mode: 'similar',
      similar_to_asset_id: falconId,
    });
    expect(similar.error).toMatchObject({ code: 'not_found', field: 'args.similar_to_asset_id' });
    // Tenant A's theme id is as unknown to B as a random id.
    const foreignTheme = await b.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id });
    const randomTheme = await b.call('svc_asset_library', 'search', { theme_id: '11111111-1111-4111-8111-111111111111' });
    expect(foreignTheme.error?.code).toBe('not_found');
    expect(foreignTheme.error?.code).toBe(randomTheme.error?.code);
    // A's workspace id is not reachable by B.
    const ws = await b.call('svc_asset_library', 'search', { theme_id: other.theme_id, workspace_id: srv.tenant.workspace_id });
    expect(ws.error).toMatchObject({ code: 'not_found', field: 'args.workspace_id' });
  });

  it('does not dedupe across tenants: identical bytes become a separate asset', async () => {
    const r = await b.call('svc_asset_import', 'import', { data: FALCON, mime_type: 'image/jpeg', filename: 'their-falcon.jpg' });
    expect(r.structured.deduplicated).toBe(false);
    expect(r.structured.asset_id).not.toBe(falconId);
    const mine = await a.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, query: 'falcon' });
    expect((mine.structured.assets as { id: string }[]).map((x) => x.id)).toEqual([falconId]);
  });

  it('requires workspace_id once a key reaches two active workspaces', async () => {
    const t = srv.app.library.tenancy;
    const second = await createWorkspace(t, srv.tenant.tenant_id, 'Second brand');
    const r = await a.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id });
    expect(r.error).toMatchObject({ code: 'ambiguous_scope', field: 'args.workspace_id' });
    const candidates = r.error?.details?.candidates as { id: string; name: string }[];
    expect(candidates.map((x) => x.id).sort()).toEqual([srv.tenant.workspace_id, second.workspace_id].sort());
    expect(r.error?.message).toContain('Second brand');
    const imp = await a.call('svc_asset_import', 'import', { data: FALCON, mime_type: 'image/jpeg' });
    expect(imp.error?.code).toBe('ambiguous_scope');

    // Explicit workspace works; its theme must belong to it.
    const ok = await a.call('svc_asset_library', 'search', {
      theme_id: srv.tenant.theme_id,
      workspace_id: srv.tenant.workspace_id,
      query: 'falcon',
    });
    expect(ok.structured.total).toBe(1);
    const wrongTheme = await a.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, workspace_id: second.workspace_id });
    expect(wrongTheme.error).toMatchObject({ code: 'not_found', field: 'args.theme_id' });
    const secondLib = await a.call('svc_asset_library', 'search', { theme_id: second.theme_id, workspace_id: second.workspace_id });
    expect(secondLib.structured.total).toBe(0);
    const view = await a.call('svc_assets', 'view', { asset_id: falconId, workspace_id: second.workspace_id });
    expect(view.error?.code).toBe('not_found');

    // Archiving one makes the other the only active workspace again.
    await t.setWorkspaceStatus(srv.tenant.tenant_id, second.workspace_id, 'archived');
    const auto = await a.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, query: 'falcon' });
    expect(auto.structured.total).toBe(1);
    const archived = await a.call('svc_asset_library', 'search', { theme_id: second.theme_id, workspace_id: second.workspace_id });
    expect(archived.error).toMatchObject({ code: 'not_found', field: 'args.workspace_id' });
    await t.setWorkspaceStatus(srv.tenant.tenant_id, second.workspace_id, 'active');

    // A key limited to the second workspace sees only it, and needs no workspace_id.
    const limited = await createApiKey(t, srv.tenant.tenant_id, { workspaceIds: [second.workspace_id] });
    const lc = await srv.connect(limited.api_key);
    const only = await lc.call('svc_asset_library', 'search', { theme_id: second.theme_id });
    expect(only.error).toBeUndefined();
    const denied = await lc.call('svc_assets', 'view', { asset_id: falconId, workspace_id: srv.tenant.workspace_id });
    expect(denied.error).toMatchObject({ code: 'not_found', field: 'args.workspace_id' });
    await t.setWorkspaceStatus(srv.tenant.tenant_id, second.workspace_id, 'archived');
  });

  it('rejects an unknown API key on every call', async () => {
    const bad = await srv.connect('atl_not-a-real-key');
    const r = await bad.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id });
    expect(r.error).toMatchObject({ code: 'unauthenticated' });
  });
});
