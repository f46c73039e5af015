import { randomUUID } from 'node:crypto';
import type { Scope } from '../../domain/scope.ts';
import type { CreditCharge, CreditEntry, CreditReservation, CreditStore } from '../ports/credit-store.ts';
import { inTransaction, type PgClient, type PgPool } from './pool.ts';

type Query = Pick<PgClient, 'query'>;

const usedOf = async (q: Query, scope: Scope): Promise<number> =>
  (
    await q.query<{ n: number }>(
      'SELECT coalesce(sum(credits), 0)::bigint AS n FROM credit_ledger WHERE tenant_id = $1 AND workspace_id = $2',
      [scope.tenantId, scope.workspaceId],
    )
  ).rows[0]!.n;

const heldOf = async (q: Query, scope: Scope, nowMs: number): Promise<number> =>
  (
    await q.query<{ n: number }>(
      'SELECT coalesce(sum(credits), 0)::bigint AS n FROM credit_holds WHERE tenant_id = $1 AND workspace_id = $2 AND expires_at_ms > $3',
      [scope.tenantId, scope.workspaceId, nowMs],
    )
  ).rows[0]!.n;

/**
 * Lock the workspace's row of `credit_accounts` (created on first use) until the transaction ends: the
 * serialisation point of `reserve` and `settle`. INSERT … ON CONFLICT DO UPDATE locks the existing row
 * like SELECT … FOR UPDATE (https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT).
 */
const lockAccount = async (c: PgClient, scope: Scope): Promise<void> => {
  await c.query(
    `INSERT INTO credit_accounts (tenant_id, workspace_id) VALUES ($1, $2)
     ON CONFLICT (tenant_id, workspace_id) DO UPDATE SET tenant_id = excluded.tenant_id`,
    [scope.tenantId, scope.workspaceId],
  );
};

/**
 * The ledger charge and hold release of a settlement inside the caller's transaction `c` (`settle`, and
 * the asset store's insert settling with the asset), after locking the workspace's account row as
 * `reserve` does. Idempotent on `holdId`. @returns whether the charge was written now
 */
export async function settleIn(c: PgClient, scope: Scope, holdId: string, ch: CreditCharge): Promise<boolean> {
  await lockAccount(c, scope);
  const r = await c.query(
    `INSERT INTO credit_ledger (tenant_id, workspace_id, asset_id, provider, model, credits, created_at, hold_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (hold_id) WHERE hold_id IS NOT NULL DO NOTHING`,
    [scope.tenantId, scope.workspaceId, ch.assetId, ch.provider, ch.model, ch.credits, new Date().toISOString(), holdId],
  );
  await c.query('DELETE FROM credit_holds WHERE id = $1', [holdId]);
  return r.rowCount === 1;
}

/**
 * The PostgreSQL `CreditStore` (credit tables of postgres/migrations/0001). `reserve` and `settle` run in
 * READ COMMITTED transactions that first lock the workspace's account row, so the budget check of one
 * caller sees every hold committed by the callers before it: concurrent holds never overdraw, from any
 * number of processes. Not wired into the server yet (see pool.ts).
 */
export function createPgCreditStore(pool: PgPool): CreditStore {
  return {
    used: (scope) => usedOf(pool, scope),
    held: (scope, nowMs = Date.now()) => heldOf(pool, scope, nowMs),
    reserve: (scope, credits, budget, ttlMs) =>
      inTransaction(pool, async (c): Promise<CreditReservation> => {
        const now = Date.now();
        await lockAccount(c, scope);
        await c.query('DELETE FROM credit_holds WHERE tenant_id = $1 AND workspace_id = $2 AND expires_at_ms <= $3', [
          scope.tenantId,
          scope.workspaceId,
          now,
        ]);
        const u = await usedOf(c, scope);
        const h = await heldOf(c, scope, now);
        if (budget !== null && u + h + credits > budget) return { ok: false, used: u, held: h };
        const holdId = randomUUID();
        await c.query(
          'INSERT INTO credit_holds (id, tenant_id, workspace_id, credits, created_at, expires_at_ms) VALUES ($1, $2, $3, $4, $5, $6)',
          [holdId, scope.tenantId, scope.workspaceId, credits, new Date(now).toISOString(), now + ttlMs],
        );
        return { ok: true, holdId };
      }),
    settle: (scope, holdId, ch) => inTransaction(pool, (c) => settleIn(c, scope, holdId, ch)),
    async release(holdId) {
      await pool.query('DELETE FROM credit_holds WHERE id = $1', [holdId]);
    },
    async budget(scope) {
      const r = await pool.query<{ budget_credits: number }>(
        'SELECT budget_credits FROM credit_budgets WHERE tenant_id = $1 AND workspace_id = $2',
        [scope.tenantId, scope.workspaceId],
      );
      return r.rows[0]?.budget_credits ?? null;
    },
    async setBudget(scope, credits) {
      if (credits === null) {
        await pool.query('DELETE FROM credit_budgets WHERE tenant_id = $1 AND workspace_id = $2', [scope.tenantId, scope.workspaceId]);
        return;
      }
      await pool.query(
        `INSERT INTO credit_budgets (workspace_id, tenant_id, budget_credits, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (workspace_id) DO UPDATE SET budget_credits = excluded.budget_credits, updated_at = excluded.updated_at`,
        [scope.workspaceId, scope.tenantId, credits, new Date().toISOString()],
      );
    },
    async entries(scope) {
      const r = await pool.query<Omit<CreditEntry, 'created_at'> & { created_at: Date }>(
        'SELECT asset_id, provider, model, credits, created_at FROM credit_ledger WHERE tenant_id = $1 AND workspace_id = $2 ORDER BY id',
        [scope.tenantId, scope.workspaceId],
      );
      return r.rows.map((e) => ({ ...e, created_at: e.created_at.toISOString() }));
    },
  };
}
