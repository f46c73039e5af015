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
    charge: db.prepare('INSERT INTO credit_ledger (tenant_id, workspace_id, asset_id, provider, model, credits, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    entries: db.prepare('SELECT asset_id, provider, model, credits, created_at FROM credit_ledger WHERE tenant_id = ? AND workspace_id = ? ORDER BY id'),
  };
  return {
    /** Credits charged so far in the workspace. */
    used: (scope: Scope): number => (s.used.get(scope.tenantId, scope.workspaceId) as { n: number }).n,
    /** The workspace's budget in credits, or null when none is set (unlimited). */
    budget: (scope: Scope): number | null => (s.budget.get(scope.tenantId, scope.workspaceId) as { budget_credits: number } | undefined)?.budget_credits ?? null,
    /** Set (or with null, remove) the workspace's budget. */
    setBudget(scope: Scope, credits: number | null): void {
      if (credits === null) s.clearBudget.run(scope.tenantId, scope.workspaceId);
      else s.setBudget.run(scope.workspaceId, scope.tenantId, credits, new Date().toISOString());
    },
    /** Append a charge (call inside the transaction that stores the asset). */
    charge: (scope: Scope, c: CreditCharge): void => void s.charge.run(scope.tenantId, scope.workspaceId, c.assetId, c.provider, c.model, c.credits, new Date().toISOString()),
    /** The ledger of the workspace, oldest first. */
    entries: (scope: Scope) => s.entries.all(scope.tenantId, scope.workspaceId) as { asset_id: string | null; provider: string; model: string; credits: number; created_at: string }[],
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
  };
}
export type CreditQueries = ReturnType<typeof createCreditQueries>;
