import { describe, expect, it } from 'vitest';
import type { CreditStore } from '../ports/credit-store.ts';
import type { StoreFixture } from './fixture.ts';

const scope = { tenantId: 't', workspaceId: 'w' };
const charge = (assetId: string, credits: number) => ({ assetId, provider: 'p', model: 'm', credits });

/**
 * The behaviour every `CreditStore` must have, as vitest cases: budgets, holds counted against them until
 * settled, released or expired, settle charging at most once per hold, the ledger, scoping, and holds of
 * concurrent callers in two processes that never overdraw a budget together.
 */
export function creditStoreContract(name: string, f: StoreFixture<CreditStore>): void {
  describe(`CreditStore contract: ${name}`, () => {
    it('reserves within the budget, refuses beyond it, and counts holds until settled or released', async () => {
      const { store: q } = await f.create();
      const a = await q.reserve(scope, 2, 3, 60_000);
      expect(a).toEqual({ ok: true, holdId: expect.any(String) });
      expect(await q.reserve(scope, 2, 3, 60_000)).toEqual({ ok: false, used: 0, held: 2 });
      expect(await q.held(scope)).toBe(2);
      if (!a.ok) throw new Error('unreachable');
      expect(await q.settle(scope, a.holdId, charge('x', 2))).toBe(true);
      expect(await q.held(scope)).toBe(0);
      expect(await q.used(scope)).toBe(2);
      const b = await q.reserve(scope, 1, 3, 60_000);
      expect(b.ok).toBe(true);
      expect((await q.reserve(scope, 1, 3, 60_000)).ok).toBe(false);
      if (b.ok) await q.release(b.holdId);
      await q.release('never-held');
      expect(await q.held(scope)).toBe(0);
      expect((await q.reserve(scope, 1, 3, 60_000)).ok).toBe(true);
      expect((await q.reserve(scope, 5, null, 60_000)).ok).toBe(true); // no budget: unlimited
    });

    it('settle charges once per hold: a retried settle writes nothing more', async () => {
      const { store: q } = await f.create();
      const h = await q.reserve(scope, 3, null, 60_000);
      if (!h.ok) throw new Error('refused');
      expect(await q.settle(scope, h.holdId, charge('asset-1', 3))).toBe(true);
      expect(await q.settle(scope, h.holdId, charge('asset-1', 3))).toBe(false);
      expect(await q.used(scope)).toBe(3);
      const entries = await q.entries(scope);
      expect(entries).toEqual([{ asset_id: 'asset-1', provider: 'p', model: 'm', credits: 3, created_at: expect.any(String) }]);
      expect(Math.abs(Date.parse(entries[0]!.created_at) - Date.now())).toBeLessThan(60_000);
      expect(entries[0]!.created_at).toBe(new Date(entries[0]!.created_at).toISOString());
    });

    it('a hold whose process died stops counting when it expires', async () => {
      const { store: q } = await f.create();
      const other = { tenantId: 't', workspaceId: 'w2' };
      expect((await q.reserve(other, 1, 1, -1)).ok).toBe(true); // already expired
      expect(await q.held(other)).toBe(0);
      expect((await q.reserve(other, 1, 1, 60_000)).ok).toBe(true);
      expect(await q.held(other)).toBe(1);
      expect(await q.held(other, Date.now() + 120_000)).toBe(0);
    });

    it('budgets are per workspace, set, replaced and removed; the ledger is per workspace, oldest first', async () => {
      const { store: q } = await f.create();
      const w2 = { tenantId: 't', workspaceId: 'w2' };
      expect(await q.budget(scope)).toBeNull();
      await q.setBudget(scope, 10);
      await q.setBudget(scope, 7);
      expect(await q.budget(scope)).toBe(7);
      expect(await q.budget(w2)).toBeNull();
      for (const [i, s] of [scope, w2, scope].entries()) {
        const h = await q.reserve(s, i + 1, null, 60_000);
        if (h.ok) await q.settle(s, h.holdId, charge(`a${i}`, i + 1));
      }
      expect((await q.entries(scope)).map((e) => [e.asset_id, e.credits])).toEqual([
        ['a0', 1],
        ['a2', 3],
      ]);
      expect(await q.used(scope)).toBe(4);
      expect(await q.used(w2)).toBe(2);
      expect((await q.reserve(scope, 4, 7, 60_000)).ok).toBe(false);
      expect((await q.reserve(scope, 3, 7, 60_000)).ok).toBe(true);
      await q.setBudget(scope, null);
      expect(await q.budget(scope)).toBeNull();
    });

    it('concurrent holds from two processes against one budget never overdraw it', async () => {
      const { store: a, open } = await f.create();
      const b = await open();
      const budget = 7;
      const h0 = await a.reserve(scope, 2, budget, 60_000); // 2 already charged
      if (!h0.ok) throw new Error('refused');
      await a.settle(scope, h0.holdId, charge('seed', 2));
      // connections open first (a pool connects lazily), so the reserves below really overlap
      await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).held(scope)));
      const tries = Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).reserve(scope, 1, budget, 60_000));
      const results = await Promise.all(tries);
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      expect(await a.held(scope)).toBe(5);
      expect(await b.used(scope)).toBe(2);
      for (const r of results) if (!r.ok) expect(r.used + r.held).toBeLessThanOrEqual(budget);
      // settling every hold from both processes at once charges each once
      const ok = results.filter((r): r is { ok: true; holdId: string } => r.ok);
      await Promise.all(ok.flatMap((r) => [a.settle(scope, r.holdId, charge('g', 1)), b.settle(scope, r.holdId, charge('g', 1))]));
      expect(await a.used(scope)).toBe(budget);
      expect(await b.held(scope)).toBe(0);
    });
  });
}
