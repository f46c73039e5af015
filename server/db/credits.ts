import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { Scope } from '../domain/scope.ts';

/** One charge of the credit ledger. */
export interface CreditCharge {
  assetId: string | null;
  provider: string;
  model: string;
  /** credits, ≥ 0 */
  credits: number;
}

/** Credit ledger and workspace budgets (migration 0004). Every function takes the scope first. */
export function createCreditQueries(db: Database) {
  const s = {
    used: db.prepare('SELECT coalesce(sum(credits), 0) AS n FROM credit_ledger WHERE tenant_id = ? AND workspace_id = ?'),
    budget: db.prepare('SELECT budget_credits FROM credit_budgets WHERE tenant_id = ? AND workspace_id = ?'),
    setBudget: db.prepare(
      `INSERT INTO credit_budgets (workspace_id, tenant_id, budget_credits, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(workspace_id) DO UPDATE SET budget_credits = excluded.budget_credits, updated_at = excluded.updated_at`,
    ),
    clearBudget: db.prepare('DELETE FROM credit_budgets WHERE tenant_id = ? AND workspace_id = ?'),
    charge: db.prepare(
      'INSERT INTO credit_ledger (tenant_id, workspace_id, asset_id, provider, model, credits, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
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
  const used = (scope: Scope): number => (s.used.get(scope.tenantId, scope.workspaceId) as { n: number }).n;
  const held = (scope: Scope, now = Date.now()): number => (s.held.get(scope.tenantId, scope.workspaceId, now) as { n: number }).n;
  return {
    /** Credits charged so far in the workspace. */
    used,
    /** Credits reserved by generations in flight (unexpired holds of any process). */
    held,
    /**
     * Reserve `credits` against `budget` (null = unlimited) for a generation in flight. The check and
     * the insert run in one `BEGIN IMMEDIATE` transaction, so concurrent callers (in this or another
     * process on the same database) are serialised and cannot overspend together.
     * @param ttlMs how long the hold counts if it is never released (a crashed process), ms
     * @returns the hold id, or the figures that refused it
     */
    reserve(
      scope: Scope,
      credits: number,
      budget: number | null,
      ttlMs: number,
    ): { ok: true; holdId: string } | { ok: false; used: number; held: number } {
      const now = Date.now();
      return db
        .transaction(() => {
          s.dropExpired.run(now);
          const u = used(scope);
          const h = held(scope, now);
          if (budget !== null && u + h + credits > budget) return { ok: false as const, used: u, held: h };
          const holdId = randomUUID();
          s.hold.run(holdId, scope.tenantId, scope.workspaceId, credits, new Date(now).toISOString(), now + ttlMs);
          return { ok: true as const, holdId };
        })
        .immediate();
    },
    /** Release a hold (generation failed, or inside the charging transaction). Unknown ids are fine. */
    release: (holdId: string): void => void s.release.run(holdId),
    /** The workspace's budget in credits, or null when none is set (unlimited). */
    budget: (scope: Scope): number | null =>
      (s.budget.get(scope.tenantId, scope.workspaceId) as { budget_credits: number } | undefined)?.budget_credits ?? null,
    /** Set (or with null, remove) the workspace's budget. */
    setBudget(scope: Scope, credits: number | null): void {
      if (credits === null) s.clearBudget.run(scope.tenantId, scope.workspaceId);
      else s.setBudget.run(scope.workspaceId, scope.tenantId, credits, new Date().toISOString());
    },
    /** Append a charge (call inside the transaction that stores the asset). */
    charge: (scope: Scope, c: CreditCharge): void =>
      void s.charge.run(scope.tenantId, scope.workspaceId, c.assetId, c.provider, c.model, c.credits, new Date().toISOString()),
    /** The ledger of the workspace, oldest first. */
    entries: (scope: Scope) =>
      s.entries.all(scope.tenantId, scope.workspaceId) as {
        asset_id: string | null;
        provider: string;
        model: string;
        credits: number;
        created_at: string;
      }[],
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}
export type CreditQueries = ReturnType<typeof createCreditQueries>;
