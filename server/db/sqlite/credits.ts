import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Scope } from '../../domain/scope.ts';
import type { CreditCharge, CreditEntry, CreditReservation, CreditStore } from '../ports/credit-store.ts';

/**
 * The ledger charge and hold release of a settlement, synchronous, for the caller's transaction
 * (`CreditStore.settle`, and `AssetStore.insert` settling with the asset). Idempotent on `holdId`.
 * @returns a function answering whether the charge was written now (false: the hold was settled before)
 */
export function creditSettlement(db: Database): (scope: Scope, holdId: string, c: CreditCharge) => boolean {
  const charge = db.prepare(
    `INSERT INTO credit_ledger (tenant_id, workspace_id, asset_id, provider, model, credits, created_at, hold_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (hold_id) WHERE hold_id IS NOT NULL DO NOTHING`,
  );
  const release = db.prepare('DELETE FROM credit_holds WHERE id = ?');
  return (scope, holdId, c) => {
    const r = charge.run(scope.tenantId, scope.workspaceId, c.assetId, c.provider, c.model, c.credits, new Date().toISOString(), holdId);
    release.run(holdId);
    return r.changes === 1;
  };
}

/**
 * The SQLite `CreditStore` (migrations 0004, 0009, 0050): the embedded default. `reserve` and `settle`
 * run in `BEGIN IMMEDIATE` transactions, so concurrent callers (in this or another process on the same
 * database file) are serialised and cannot overspend together. better-sqlite3 is synchronous: each
 * method does its work before it returns its promise.
 */
export function createSqliteCreditStore(db: Database): CreditStore {
  const s = {
    used: db.prepare('SELECT coalesce(sum(credits), 0) AS n FROM credit_ledger WHERE tenant_id = ? AND workspace_id = ?'),
    budget: db.prepare('SELECT budget_credits FROM credit_budgets WHERE tenant_id = ? AND workspace_id = ?'),
    setBudget: db.prepare(
      `INSERT INTO credit_budgets (workspace_id, tenant_id, budget_credits, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(workspace_id) DO UPDATE SET budget_credits = excluded.budget_credits, updated_at = excluded.updated_at`,
    ),
    clearBudget: db.prepare('DELETE FROM credit_budgets WHERE tenant_id = ? AND workspace_id = ?'),
    entries: db.prepare(
      'SELECT asset_id, provider, model, credits, created_at FROM credit_ledger WHERE tenant_id = ? AND workspace_id = ? ORDER BY id',
    ),
    held: db.prepare(
      'SELECT coalesce(sum(credits), 0) AS n FROM credit_holds WHERE tenant_id = ? AND workspace_id = ? AND expires_at_ms > ?',
    ),
    hold: db.prepare(
      'INSERT INTO credit_holds (id, tenant_id, workspace_id, credits, created_at, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    release: db.prepare('DELETE FROM credit_holds WHERE id = ?'),
    dropExpired: db.prepare('DELETE FROM credit_holds WHERE expires_at_ms <= ?'),
  };
  const settle = creditSettlement(db);
  const used = (scope: Scope): number => (s.used.get(scope.tenantId, scope.workspaceId) as { n: number }).n;
  const held = (scope: Scope, now = Date.now()): number => (s.held.get(scope.tenantId, scope.workspaceId, now) as { n: number }).n;
  return {
    used: async (scope) => used(scope),
    held: async (scope, nowMs) => held(scope, nowMs),
    async reserve(scope, credits, budget, ttlMs): Promise<CreditReservation> {
      const now = Date.now();
      return db
        .transaction((): CreditReservation => {
          s.dropExpired.run(now);
          const u = used(scope);
          const h = held(scope, now);
          if (budget !== null && u + h + credits > budget) return { ok: false, used: u, held: h };
          const holdId = randomUUID();
          s.hold.run(holdId, scope.tenantId, scope.workspaceId, credits, new Date(now).toISOString(), now + ttlMs);
          return { ok: true, holdId };
        })
        .immediate();
    },
    async settle(scope, holdId, c: CreditCharge): Promise<boolean> {
      return db.transaction((): boolean => settle(scope, holdId, c)).immediate();
    },
    release: async (holdId) => void s.release.run(holdId),
    budget: async (scope) =>
      (s.budget.get(scope.tenantId, scope.workspaceId) as { budget_credits: number } | undefined)?.budget_credits ?? null,
    async setBudget(scope, credits) {
      if (credits === null) s.clearBudget.run(scope.tenantId, scope.workspaceId);
      else s.setBudget.run(scope.workspaceId, scope.tenantId, credits, new Date().toISOString());
    },
    entries: async (scope) => s.entries.all(scope.tenantId, scope.workspaceId) as CreditEntry[],
  };
}
