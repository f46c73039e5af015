import type { Scope } from '../../domain/scope.ts';

/** One charge of the credit ledger. */
export interface CreditCharge {
  /** the generated asset this charge paid for */
  assetId: string | null;
  provider: string;
  model: string;
  /** credits, an integer ≥ 0 */
  credits: number;
}

/**
 * A credit hold to settle in the transaction that inserts the generated asset it paid for (`AssetStore.insert`):
 * the ledger charge names the new asset, the hold is deleted, at most once per `holdId` as with `settle`.
 */
export interface HoldSettlement extends Omit<CreditCharge, 'assetId'> {
  scope: Scope;
  holdId: string;
}

/** One ledger entry as read back. */
export interface CreditEntry {
  asset_id: string | null;
  provider: string;
  model: string;
  credits: number;
  /** ISO 8601 UTC with ms */
  created_at: string;
}

/** The answer of `reserve`: the hold id, or the figures (credits) that refused it. */
export type CreditReservation = { ok: true; holdId: string } | { ok: false; used: number; held: number };

/**
 * Port: workspace credit budgets, the ledger of charges and the holds of generations in flight (spec §8
 * "image credit cost"). Holds live in the store, not in one process's memory, so several server
 * processes cannot together overspend a budget. Every scoped method takes the scope first. Credits are
 * integers ≥ 0. Implementations: SQLite (server/db/sqlite/credits.ts) and PostgreSQL
 * (server/db/postgres/credits.ts); both pass server/db/contract/credit-store-contract.ts.
 */
export interface CreditStore {
  /** Credits charged so far in the workspace. */
  used(scope: Scope): Promise<number>;
  /** Credits reserved by generations in flight: unexpired holds of any process at `nowMs` (epoch ms, default now). */
  held(scope: Scope, nowMs?: number): Promise<number>;
  /**
   * Reserve `credits` against `budget` (null = unlimited) for a generation in flight. The check
   * (used + held + credits ≤ budget) and the insert are one serialised step per workspace, so concurrent
   * callers in any process never reserve more than the budget together. Expired holds are dropped first.
   * @param ttlMs how long the hold counts if it is never settled or released (a crashed process), ms
   */
  reserve(scope: Scope, credits: number, budget: number | null, ttlMs: number): Promise<CreditReservation>;
  /**
   * Turn a hold into a ledger charge: append `charge` and delete hold `holdId`, atomically in this store.
   * Each hold settles once: a second call with the same hold id (a retry) charges nothing more.
   * @returns true when the charge was written now, false when the hold had already been settled
   */
  settle(scope: Scope, holdId: string, charge: CreditCharge): Promise<boolean>;
  /** Release a hold (the generation failed or was settled). Unknown ids are fine. */
  release(holdId: string): Promise<void>;
  /** The workspace's budget in credits, or null when none is set (unlimited). */
  budget(scope: Scope): Promise<number | null>;
  /** Set (or with null, remove) the workspace's budget, credits ≥ 0. */
  setBudget(scope: Scope, credits: number | null): Promise<void>;
  /** The ledger of the workspace, oldest first. */
  entries(scope: Scope): Promise<CreditEntry[]>;
}
