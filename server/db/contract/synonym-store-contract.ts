import { describe, expect, it } from 'vitest';
import type { SynonymStore } from '../ports/synonym-store.ts';
import type { TenancyStore } from '../ports/tenancy-store.ts';
import { CONTRACT_SCOPE, OTHER_TENANT, OTHER_WORKSPACE } from './fixture.ts';

/** A synonym store and the tenancy store of the same fresh database (tenants and workspaces as in fixture.ts). */
export interface SynonymStoreHandle {
  synonyms: SynonymStore;
  tenancy: TenancyStore;
}

export interface SynonymStoreFixture {
  create: () => Promise<SynonymStoreHandle>;
}

const scope = CONTRACT_SCOPE;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Add stores `shop-1`, `shop-2` to ws-a. */
async function stores(tenancy: TenancyStore): Promise<void> {
  for (const id of ['shop-1', 'shop-2'])
    await tenancy.insertStore({
      id,
      tenant_id: scope.tenantId,
      workspace_id: scope.workspaceId,
      name: id,
      platform: 'shopify',
      shop_domain: null,
      created_at: '2026-03-01T10:00:00.000Z',
    });
}

/**
 * The behaviour every `SynonymStore` must have: rules of the workspace and of its stores, which apply
 * where (asset search: the workspace's; a store: the workspace's and its own), oldest first, phrases
 * kept as written, scope isolation of every read and of removal, the unscoped operator lookup, and the
 * one-way/two-way rule shape enforced by the database.
 */
export function synonymStoreContract(name: string, f: SynonymStoreFixture): void {
  describe(`SynonymStore contract: ${name}`, () => {
    it('stores rules of the workspace and of its stores, and applies each where it belongs, oldest first', async () => {
      const { synonyms, tenancy } = await f.create();
      await stores(tenancy);
      // a few ms apart: the order is created_at (ms), then the random id
      const later = (): Promise<void> => new Promise((r) => setTimeout(r, 3));
      const sofa = await synonyms.add(scope, null, { kind: 'two_way', input: null, words: ['sofa', 'couch', 'settee'] });
      await later();
      const tee = await synonyms.add(scope, 'shop-1', { kind: 'one_way', input: 'tee', words: ['t-shirt', 'tee shirt'] });
      await later();
      const jumper = await synonyms.add(scope, null, { kind: 'two_way', input: null, words: ['jumper', 'sweater'] });
      await later();
      const hat = await synonyms.add(scope, 'shop-2', { kind: 'two_way', input: null, words: ['hat', 'cap'] });
      expect(sofa).toMatchObject({
        workspace_id: 'ws-a',
        store_id: null,
        kind: 'two_way',
        input: null,
        words: ['sofa', 'couch', 'settee'],
      });
      expect(sofa.id).toMatch(UUID);
      expect(Date.parse(sofa.created_at)).not.toBeNaN();
      expect(new Date(sofa.created_at).toISOString()).toBe(sofa.created_at);
      expect(await synonyms.list(scope)).toEqual([sofa, tee, jumper, hat]);
      expect(await synonyms.forAssets(scope)).toEqual([
        { kind: 'two_way', input: null, words: ['sofa', 'couch', 'settee'] },
        { kind: 'two_way', input: null, words: ['jumper', 'sweater'] },
      ]);
      const rule = ({ kind, input, words }: typeof sofa) => ({ kind, input, words });
      expect(await synonyms.forStore(scope, 'shop-1')).toEqual([sofa, tee, jumper].map(rule));
      expect(await synonyms.forStore(scope, 'shop-2')).toEqual([sofa, jumper, hat].map(rule));
      expect(await synonyms.forStore(scope, 'shop-3')).toEqual([sofa, jumper].map(rule));
    });

    it('keeps every read and removal inside the workspace; the operator lookup names the tenant', async () => {
      const { synonyms } = await f.create();
      const mine = await synonyms.add(scope, null, { kind: 'two_way', input: null, words: ['boat', 'ship'] });
      const theirs = await synonyms.add(OTHER_WORKSPACE, null, { kind: 'two_way', input: null, words: ['car', 'auto'] });
      expect(await synonyms.list(OTHER_TENANT)).toEqual([]);
      expect(await synonyms.forAssets({ tenantId: 'tenant-b', workspaceId: 'ws-a' })).toEqual([]);
      expect((await synonyms.list(scope)).map((r) => r.id)).toEqual([mine.id]);
      expect((await synonyms.list(OTHER_WORKSPACE)).map((r) => r.id)).toEqual([theirs.id]);
      expect(await synonyms.remove(scope, theirs.id)).toBe(false);
      expect(await synonyms.remove(OTHER_TENANT, mine.id)).toBe(false);
      expect(await synonyms.byId(mine.id)).toEqual({ ...mine, tenant_id: 'tenant-a' });
      expect(await synonyms.byId('00000000-0000-0000-0000-000000000000')).toBeUndefined();
      expect(await synonyms.remove(scope, mine.id)).toBe(true);
      expect(await synonyms.remove(scope, mine.id)).toBe(false);
      expect(await synonyms.byId(mine.id)).toBeUndefined();
      expect(await synonyms.list(scope)).toEqual([]);
      expect(await synonyms.forAssets(OTHER_WORKSPACE)).toEqual([{ kind: 'two_way', input: null, words: ['car', 'auto'] }]);
    });

    it('refuses a one-way rule without input, a two-way rule with one, and a missing store, storing nothing', async () => {
      const { synonyms } = await f.create();
      await expect(synonyms.add(scope, null, { kind: 'one_way', input: null, words: ['x'] })).rejects.toThrow();
      await expect(synonyms.add(scope, null, { kind: 'two_way', input: 'a', words: ['b', 'c'] })).rejects.toThrow();
      await expect(synonyms.add(scope, 'no-such-store', { kind: 'two_way', input: null, words: ['b', 'c'] })).rejects.toThrow();
      expect(await synonyms.list(scope)).toEqual([]);
    });
  });
}
