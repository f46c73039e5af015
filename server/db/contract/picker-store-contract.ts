import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NewPicker, PickerStore } from '../ports/picker-store.ts';
import type { StoreFixture } from './fixture.ts';

const scope = { tenantId: 'tenant-a', workspaceId: 'ws-a' };
const otherWorkspace = { tenantId: 'tenant-a', workspaceId: 'ws-b' };
const otherTenant = { tenantId: 'tenant-b', workspaceId: 'ws-a' };

const picker = (over: Partial<NewPicker> = {}): NewPicker => ({
  id: randomUUID(),
  themeId: 'theme-1',
  delivery: 'panel',
  status: 'awaiting_user',
  request: { query: 'red shoes', limit: 12, filters: { kind: ['image'] }, theme_id: 'theme-1' },
  selection: [],
  createdAt: '2026-03-01T10:00:00.123Z',
  confirmedAt: null,
  ...over,
});

/**
 * The behaviour every `PickerStore` must have, as vitest cases: round trip of every field (JSON request,
 * ordered selection, ms timestamps), scoping, unique ids, `finish` only from an open status and exactly
 * once under concurrency, expiry, and a picker written by one process read by another.
 */
export function pickerStoreContract(name: string, f: StoreFixture<PickerStore>): void {
  describe(`PickerStore contract: ${name}`, () => {
    it('stores every field and reads it back by id (case-insensitive), only in its own scope', async () => {
      const { store } = await f.create();
      const p = picker({ delivery: 'elicitation', status: 'candidates', selection: ['b', 'a'] });
      await store.insert(p, scope);
      expect(await store.byId(scope, p.id.toUpperCase())).toEqual({ ...p, tenantId: scope.tenantId, workspaceId: scope.workspaceId });
      expect(await store.byId(otherWorkspace, p.id)).toBeUndefined();
      expect(await store.byId(otherTenant, p.id)).toBeUndefined();
      expect(await store.byId(scope, randomUUID())).toBeUndefined();
    });

    it('refuses a second picker with the same id', async () => {
      const { store } = await f.create();
      const p = picker();
      await store.insert(p, scope);
      await expect(store.insert({ ...p, themeId: 'other' }, scope)).rejects.toThrow(/unique|constraint|duplicate/i);
      expect((await store.byId(scope, p.id))!.themeId).toBe('theme-1');
    });

    it('finish moves an open picker to a final status once, keeping the selection order; other scopes cannot', async () => {
      const { store } = await f.create();
      const p = picker();
      await store.insert(p, scope);
      expect(await store.finish(otherWorkspace, p.id, 'confirmed', ['x'], '2026-03-01T10:05:00.000Z')).toBe(false);
      expect(await store.finish(scope, p.id.toUpperCase(), 'confirmed', ['c', 'a', 'b'], '2026-03-01T10:05:00.456Z')).toBe(true);
      expect(await store.finish(scope, p.id, 'declined', [], '2026-03-01T10:06:00.000Z')).toBe(false);
      expect(await store.byId(scope, p.id)).toMatchObject({
        status: 'confirmed',
        selection: ['c', 'a', 'b'],
        confirmedAt: '2026-03-01T10:05:00.456Z',
      });
      const c = picker({ status: 'candidates' });
      await store.insert(c, scope);
      expect(await store.finish(scope, c.id, 'confirmed', ['z'], '2026-03-01T10:07:00.000Z')).toBe(true);
      expect(await store.finish(scope, randomUUID(), 'confirmed', ['z'], '2026-03-01T10:07:00.000Z')).toBe(false);
    });

    it('of concurrent finishes from two processes exactly one wins, and its selection is stored', async () => {
      const { store, open } = await f.create();
      const other = await open();
      const ids = Array.from({ length: 10 }, () => randomUUID());
      for (const id of ids) await store.insert(picker({ id }), scope);
      const results = await Promise.all(
        ids.flatMap((id) => [
          store.finish(scope, id, 'confirmed', ['from-a'], '2026-03-01T11:00:00.000Z').then((won) => ({ id, won, by: 'from-a' })),
          other.finish(scope, id, 'confirmed', ['from-b'], '2026-03-01T11:00:00.000Z').then((won) => ({ id, won, by: 'from-b' })),
        ]),
      );
      for (const id of ids) {
        const winners = results.filter((r) => r.id === id && r.won);
        expect(winners).toHaveLength(1);
        expect((await store.byId(scope, id))!.selection).toEqual([winners[0]!.by]);
      }
    });

    it('expireBefore expires only pickers awaiting the user created before the cutoff, in every scope', async () => {
      const { store } = await f.create();
      const old = picker({ createdAt: '2026-03-01T00:00:00.000Z' });
      const oldOther = picker({ createdAt: '2026-03-01T00:00:00.001Z' });
      const fresh = picker({ createdAt: '2026-03-02T00:00:00.000Z' });
      const oldDone = picker({ createdAt: '2026-03-01T00:00:00.000Z', status: 'candidates' });
      await store.insert(old, scope);
      await store.insert(oldOther, otherTenant);
      await store.insert(fresh, scope);
      await store.insert(oldDone, scope);
      expect(await store.expireBefore('2026-03-01T12:00:00.000Z')).toBe(2);
      expect((await store.byId(scope, old.id))!.status).toBe('expired');
      expect((await store.byId(otherTenant, oldOther.id))!.status).toBe('expired');
      expect((await store.byId(scope, fresh.id))!.status).toBe('awaiting_user');
      expect((await store.byId(scope, oldDone.id))!.status).toBe('candidates');
      expect(await store.finish(scope, old.id, 'confirmed', ['a'], '2026-03-01T13:00:00.000Z')).toBe(false);
      expect(await store.expireBefore('2026-03-01T12:00:00.000Z')).toBe(0);
    });

    it('a picker written by one process is read and confirmed by another', async () => {
      const { store, open } = await f.create();
      const p = picker();
      await store.insert(p, scope);
      const second = await open();
      expect((await second.byId(scope, p.id))!.request).toEqual(p.request);
      expect(await second.finish(scope, p.id, 'confirmed', ['a1', 'a2'], '2026-03-01T10:09:00.000Z')).toBe(true);
      expect(await store.byId(scope, p.id)).toMatchObject({ status: 'confirmed', selection: ['a1', 'a2'] });
    });
  });
}
