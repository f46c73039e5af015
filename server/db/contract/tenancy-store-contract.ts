import { describe, expect, it } from 'vitest';
import type { NewStore, NewTheme, NewWorkspace, TenancyStore } from '../ports/tenancy-store.ts';
import type { StoreFixture } from './fixture.ts';

const T0 = '2026-03-01T10:00:00.000Z';
const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();

const theme = (id: string, tenantId: string, workspaceId: string, created_at = T0): NewTheme => ({
  id,
  tenant_id: tenantId,
  workspace_id: workspaceId,
  name: `${id} theme`,
  brand_colors: ['#112233', '#abcdef'],
  brand_tone: null,
  created_at,
});
const store = (id: string, tenantId: string, workspaceId: string, created_at = T0): NewStore => ({
  id,
  tenant_id: tenantId,
  workspace_id: workspaceId,
  name: `${id} store`,
  platform: 'shopify',
  shop_domain: null,
  created_at,
});

/** A tenant with one workspace (its theme `th-<ws>` and store `st-<ws>`). */
async function seed(s: TenancyStore, tenantId: string, workspaceId: string, created_at = T0): Promise<void> {
  if (!(await s.tenant(tenantId))) await s.insertTenant(tenantId, `${tenantId} name`, T0);
  const w: NewWorkspace = { id: workspaceId, tenant_id: tenantId, name: `${workspaceId} name`, created_at };
  await s.createWorkspace(
    w,
    theme(`th-${workspaceId}`, tenantId, workspaceId, created_at),
    store(`st-${workspaceId}`, tenantId, workspaceId, created_at),
    true,
  );
}

const key = (id: string, tenantId: string, created_at = T0) => ({
  id,
  tenant_id: tenantId,
  name: `${id} name`,
  prefix: 'atl_abcdef',
  key_hash: `${id.padEnd(8, '0')}${'0'.repeat(56)}`,
  created_at,
});

/**
 * The behaviour every `TenancyStore` must have, as vitest cases: exact row shapes (ISO ms times, JSON
 * text brand colours, 0/1 default flag), tenant and workspace isolation, the atomic composite writes
 * (a failing one leaves nothing), one default theme per workspace under concurrent writers of two
 * processes, key grants and revocation, byte-wise id order, and first-writer-wins settings.
 */
export function tenancyStoreContract(name: string, f: StoreFixture<TenancyStore>): void {
  describe(`TenancyStore contract: ${name}`, () => {
    it('settings: absent reads undefined, ensureSetting keeps the first value, also across processes', async () => {
      const { store: s, open } = await f.create();
      const other = await open();
      expect(await s.getSetting('k')).toBeUndefined();
      expect(await s.ensureSetting('k', 'one')).toBe('one');
      expect(await other.ensureSetting('k', 'two')).toBe('one');
      const raced = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? s : other).ensureSetting('race', `v${i}`)));
      expect(new Set(raced).size).toBe(1);
      expect(await s.getSetting('race')).toBe(raced[0]);
    });

    it("a tenant's own storage quota: null until set, bytes or 0 (unlimited), null again; false for an unknown tenant", async () => {
      const { store: s } = await f.create();
      await s.insertTenant('tq', 'Quota', T0);
      expect(await s.tenantQuota('tq')).toBeNull();
      expect(await s.tenantQuota('nobody')).toBeUndefined();
      expect(await s.setTenantQuota('tq', 5_000_000_000)).toBe(true); // past 2^32: a bigint on PostgreSQL
      expect(await s.tenantQuota('tq')).toBe(5_000_000_000);
      expect(await s.setTenantQuota('tq', 0)).toBe(true);
      expect(await s.tenantQuota('tq')).toBe(0);
      expect(await s.setTenantQuota('tq', null)).toBe(true);
      expect(await s.tenantQuota('tq')).toBeNull();
      expect(await s.setTenantQuota('nobody', 1)).toBe(false);
    });

    it('tenants and a new workspace read back with the exact SQLite row shapes', async () => {
      const { store: s } = await f.create();
      await s.insertTenant('t1', 'Acme', '2026-03-01T10:00:00.123Z');
      expect(await s.tenant('t1')).toStrictEqual({ id: 't1', name: 'Acme', created_at: '2026-03-01T10:00:00.123Z' });
      await expect(s.insertTenant('t1', 'again', T0)).rejects.toThrow(/unique|constraint|duplicate/i);
      await s.insertTenant('t0', 'Acme', '2026-03-01T09:00:00.000Z');
      expect((await s.tenantByName('Acme'))!.id).toBe('t0');
      expect(await s.tenantByName('nobody')).toBeUndefined();
      await seed(s, 't1', 'w1', '2026-03-01T11:00:00.456Z');
      expect(await s.workspace('t1', 'w1')).toStrictEqual({
        id: 'w1',
        tenant_id: 't1',
        name: 'w1 name',
        status: 'active',
        created_at: '2026-03-01T11:00:00.456Z',
      });
      expect(await s.themesOfWorkspace('t1', 'w1')).toStrictEqual([
        {
          id: 'th-w1',
          tenant_id: 't1',
          workspace_id: 'w1',
          name: 'th-w1 theme',
          brand_colors: ['#112233', '#abcdef'],
          brand_tone: null,
          is_default: true,
          created_at: '2026-03-01T11:00:00.456Z',
        },
      ]);
      expect(await s.storesOfWorkspace('t1', 'w1')).toStrictEqual([
        {
          id: 'st-w1',
          tenant_id: 't1',
          workspace_id: 'w1',
          name: 'st-w1 store',
          platform: 'shopify',
          shop_domain: null,
          status: 'active',
          catalog_synced_at: null,
          created_at: '2026-03-01T11:00:00.456Z',
        },
      ]);
      expect(await s.storeById('st-w1')).toMatchObject({ id: 'st-w1', workspace_id: 'w1' });
      expect(await s.operator.workspaceById('w1')).toMatchObject({ id: 'w1', tenant_id: 't1' });
    });

    it('createWorkspace is atomic: an unknown tenant or a taken store id writes nothing', async () => {
      const { store: s } = await f.create();
      await seed(s, 't1', 'w1');
      const w = { id: 'w2', tenant_id: 'nobody', name: 'x', created_at: T0 };
      await expect(s.createWorkspace(w, theme('th2', 'nobody', 'w2'), store('st2', 'nobody', 'w2'), true)).rejects.toThrow();
      expect(await s.operator.workspaceById('w2')).toBeUndefined();
      const w3 = { id: 'w3', tenant_id: 't1', name: 'x', created_at: T0 };
      await expect(s.createWorkspace(w3, theme('th3', 't1', 'w3'), store('st-w1', 't1', 'w3'), true)).rejects.toThrow(
        /unique|constraint|duplicate/i,
      );
      expect(await s.workspace('t1', 'w3')).toBeUndefined();
      expect(await s.theme('t1', 'w3', 'th3')).toBeUndefined();
    });

    it('workspaces are per tenant, ordered by (created_at, id) byte-wise, and archiving is scoped', async () => {
      const { store: s } = await f.create();
      await seed(s, 't1', 'w_1', at(1000));
      await seed(s, 't1', 'w-2', at(1000));
      await seed(s, 't1', 'wA', at(0));
      await seed(s, 't2', 'wB', at(0));
      expect((await s.workspacesOfTenant('t1')).map((w) => w.id)).toEqual(['wA', 'w-2', 'w_1']);
      expect(await s.workspace('t2', 'wA')).toBeUndefined();
      expect(await s.setWorkspaceStatus('t2', 'wA', 'archived')).toBe(false);
      expect(await s.setWorkspaceStatus('t1', 'wA', 'archived')).toBe(true);
      expect((await s.workspace('t1', 'wA'))!.status).toBe('archived');
      expect((await s.operator.activeWorkspaces()).map((w) => w.id)).toEqual(['wB', 'w-2', 'w_1']);
    });

    it('keys: grants, reachable workspaces within the tenant, revocation, and an atomic insert', async () => {
      const { store: s } = await f.create();
      await seed(s, 't1', 'w1', at(0));
      await seed(s, 't1', 'w2', at(1));
      await seed(s, 't2', 'w3', at(2));
      const k1 = key('k1', 't1', at(10));
      await s.insertKey(k1, ['w2', 'w1']);
      expect(await s.keyByHash(k1.key_hash)).toStrictEqual({ ...k1, revoked_at: null });
      expect(await s.grantsOfKey('k1')).toEqual(['w1', 'w2']);
      // a grant of another tenant's workspace is stored but never reachable through this tenant
      await s.grant('k1', 'w3');
      await s.grant('k1', 'w3');
      expect(await s.grantsOfKey('k1')).toEqual(['w1', 'w2', 'w3']);
      expect((await s.reachableWorkspaces('k1', 't1')).map((w) => w.id)).toEqual(['w1', 'w2']);
      expect(await s.reachableWorkspaces('k1', 't2')).toEqual([(await s.workspace('t2', 'w3'))!]);
      await s.setWorkspaceStatus('t1', 'w2', 'archived');
      expect((await s.reachableWorkspaces('k1', 't1')).map((w) => [w.id, w.status])).toEqual([
        ['w1', 'active'],
        ['w2', 'archived'],
      ]);
      // a new workspace is granted to live keys only
      await s.insertKey(key('k2', 't1', at(11)), []);
      expect(await s.revokeKey('t2', 'k2', at(20))).toBe(false);
      expect(await s.revokeKey('t1', 'k2', '2026-03-02T00:00:00.789Z')).toBe(true);
      expect(await s.revokeKey('t1', 'k2', at(30))).toBe(false);
      await seed(s, 't1', 'w4', at(40));
      expect(await s.grantsOfKey('k1')).toContain('w4');
      expect(await s.grantsOfKey('k2')).toEqual([]);
      expect(await s.keyByHash(key('k2', 't1').key_hash)).toBeUndefined();
      expect((await s.keysOfTenant('t1')).map((k) => k.id)).toEqual(['k1']);
      expect((await s.allKeysOfTenant('t1')).map((k) => [k.id, k.revoked_at])).toEqual([
        ['k1', null],
        ['k2', '2026-03-02T00:00:00.789Z'],
      ]);
      expect((await s.operator.keyById('k2'))!.revoked_at).toBe('2026-03-02T00:00:00.789Z');
      // same hash again: refused, and none of its grants written
      await expect(s.insertKey({ ...key('k3', 't1'), key_hash: k1.key_hash }, ['w1'])).rejects.toThrow(/unique|constraint|duplicate/i);
      expect(await s.operator.keyById('k3')).toBeUndefined();
      expect(await s.grantsOfKey('k3')).toEqual([]);
    });

    it('themes: the first is the default, makeDefault moves it, setDefaultTheme is scoped to the workspace', async () => {
      const { store: s } = await f.create();
      await s.insertTenant('t1', 't1', T0);
      await s.insertTenant('t2', 't2', T0);
      await seed(s, 't1', 'w1');
      await seed(s, 't2', 'w2');
      expect(await s.addTheme(theme('a', 't1', 'w1', at(1)), false)).toBe(false);
      expect(await s.addTheme(theme('b', 't1', 'w1', at(2)), true)).toBe(true);
      expect((await s.themesOfWorkspace('t1', 'w1')).map((t) => [t.id, t.is_default])).toEqual([
        ['b', true],
        ['th-w1', false],
        ['a', false],
      ]);
      expect(await s.setDefaultTheme('t1', 'w1', 'th-w2')).toBe(false);
      expect(await s.setDefaultTheme('t2', 'w1', 'a')).toBe(false);
      expect((await s.theme('t1', 'w1', 'b'))!.is_default).toBe(true);
      expect(await s.setDefaultTheme('t1', 'w1', 'a')).toBe(true);
      expect((await s.themesOfWorkspace('t1', 'w1')).filter((t) => t.is_default).map((t) => t.id)).toEqual(['a']);
      expect(await s.theme('t2', 'w1', 'a')).toBeUndefined();
      // brand colours come back as the array given, in order (also none)
      expect((await s.theme('t1', 'w1', 'a'))!.brand_colors).toEqual(['#112233', '#abcdef']);
      await s.addTheme({ ...theme('plain', 't1', 'w1', at(3)), brand_colors: [] }, false);
      expect(await s.theme('t1', 'w1', 'plain')).toMatchObject({ brand_colors: [], is_default: false });
      // a workspace without themes (none can be created that way, but the rule holds): first theme is default
      expect((await s.themesOfWorkspace('t2', 'w2')).map((t) => t.id)).toEqual(['th-w2']);
    });

    it('concurrent default-theme changes from two processes leave exactly one default', async () => {
      const { store: s, open } = await f.create();
      const other = await open();
      await seed(s, 't1', 'w1');
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 3 === 2
            ? (i % 2 ? s : other).setDefaultTheme('t1', 'w1', 'th-w1')
            : (i % 2 ? s : other).addTheme(theme(`c${i}`, 't1', 'w1', at(i)), true),
        ),
      );
      expect(results.every((r) => r === true)).toBe(true);
      const themes = await s.themesOfWorkspace('t1', 'w1');
      expect(themes).toHaveLength(9);
      expect(themes.filter((t) => t.is_default)).toHaveLength(1);
    });

    it('stores: added to a workspace, listed in order, scoped', async () => {
      const { store: s } = await f.create();
      await seed(s, 't1', 'w1', at(0));
      await s.insertStore({ ...store('s2', 't1', 'w1', at(5)), shop_domain: 'acme.myshopify.com' });
      expect((await s.storesOfWorkspace('t1', 'w1')).map((x) => [x.id, x.shop_domain])).toEqual([
        ['st-w1', null],
        ['s2', 'acme.myshopify.com'],
      ]);
      expect(await s.storesOfWorkspace('t2', 'w1')).toEqual([]);
      expect(await s.storeById('nope')).toBeUndefined();
    });
  });
}
