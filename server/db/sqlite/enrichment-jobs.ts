import type { Database } from 'better-sqlite3';
import type { FinishResult, JobKind, JobQueue, JobRow } from '../ports/job-queue.ts';

const JOB_COLUMNS = 'id, asset_seq, kind, state, attempts, rerun, run_after, last_error';
/** An `enrichment_jobs` row as SQLite gives it: `rerun` 0 or 1. */
type RawJob = Omit<JobRow, 'rerun'> & { rerun: number };
const jobOf = (r: RawJob): JobRow => ({ ...r, rerun: r.rerun === 1 });

/** SQLite's clock as epoch ms, read in the statement (the clock leases are set and compared by). */
export const SQLITE_NOW_MS = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";

/**
 * The SQLite `JobQueue` (table `enrichment_jobs`, migrations 0003, 0012, 0014): the embedded default.
 * Leases are set and compared in SQL by SQLite's own clock (`SQLITE_NOW_MS`), as PostgreSQL's are by its.
 * Claims and settles run in `BEGIN IMMEDIATE` transactions, so several processes on one database file
 * share the queue. better-sqlite3 is synchronous: each method does its work before it returns its promise.
 * The asset-side enrichment writes live in asset-enrichment.ts.
 */
export function createJobQueue(db: Database): JobQueue {
  const now = () => new Date().toISOString();
  const s = {
    enqueue: db.prepare(
      `INSERT INTO enrichment_jobs (asset_seq, kind, state, attempts, run_after, created_at, updated_at)
       VALUES (?, ?, 'queued', 0, ?, ?, ?)
       ON CONFLICT (asset_seq, kind) DO UPDATE SET
         state = CASE WHEN enrichment_jobs.state = 'running' THEN 'running' ELSE 'queued' END,
         rerun = CASE WHEN enrichment_jobs.state = 'running' THEN 1 ELSE 0 END,
         attempts = CASE WHEN enrichment_jobs.state = 'running' THEN enrichment_jobs.attempts ELSE 0 END,
         run_after = CASE WHEN enrichment_jobs.state = 'running' THEN enrichment_jobs.run_after ELSE excluded.run_after END,
         last_error = CASE WHEN enrichment_jobs.state = 'running' THEN enrichment_jobs.last_error ELSE NULL END,
         updated_at = excluded.updated_at`,
    ),
    nextDue: db.prepare(`SELECT min(run_after) AS t FROM enrichment_jobs WHERE state = 'queued'`),
    claimDue: db.prepare(
      `UPDATE enrichment_jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?, lease_until = ${SQLITE_NOW_MS} + ?, updated_at = ?
       WHERE id IN (SELECT id FROM enrichment_jobs WHERE state = 'queued' AND run_after <= ? ORDER BY run_after, id LIMIT ?)
       RETURNING ${JOB_COLUMNS}`,
    ),
    renew: db.prepare(
      `UPDATE enrichment_jobs SET lease_until = ${SQLITE_NOW_MS} + ? WHERE id = ? AND state = 'running' AND lease_owner = ?`,
    ),
    // A job flagged for a re-run goes back to the queue at once with fresh attempts, whatever this run's outcome.
    finish: db.prepare(
      `UPDATE enrichment_jobs SET
         state = CASE WHEN rerun = 1 THEN 'queued' ELSE @state END,
         last_error = @error,
         attempts = CASE WHEN rerun = 1 THEN 0 ELSE attempts END,
         run_after = CASE WHEN rerun = 1 THEN @now_ms ELSE @run_after END,
         rerun = 0, lease_owner = NULL, lease_until = NULL, updated_at = @now
       WHERE id = @id AND state = 'running' AND lease_owner = @owner`,
    ),
    rerunPending: db.prepare(`SELECT rerun FROM enrichment_jobs WHERE id = ?`),
    requeueExpired: db.prepare(
      `UPDATE enrichment_jobs SET state = 'queued', rerun = 0, lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE state = 'running' AND coalesce(lease_until, 0) < ${SQLITE_NOW_MS}`,
    ),
    requeueFailed: db.prepare(
      `UPDATE enrichment_jobs SET state = 'queued', attempts = 0, run_after = ?, updated_at = ? WHERE state = 'failed'`,
    ),
    pendingOf: db.prepare(`SELECT count(*) AS n FROM enrichment_jobs WHERE asset_seq = ? AND state IN ('queued', 'running')`),
    failedOf: db.prepare(`SELECT count(*) AS n FROM enrichment_jobs WHERE asset_seq = ? AND state = 'failed'`),
    pendingKind: db.prepare(`SELECT count(*) AS n FROM enrichment_jobs WHERE kind = ? AND state IN ('queued', 'running')`),
  };
  const count = (stmt: { get(...a: unknown[]): unknown }, ...args: unknown[]): number => (stmt.get(...args) as { n: number }).n;

  return {
    async enqueue(seq: number, kind: JobKind, runAfterMs = Date.now()) {
      s.enqueue.run(seq, kind, runAfterMs, now(), now());
    },
    async enqueueMany(seqs: number[], kind: JobKind, runAfterMs = Date.now()) {
      db.transaction(() => {
        for (const q of seqs) s.enqueue.run(q, kind, runAfterMs, now(), now());
      }).immediate();
    },
    async claimDue(owner: string, limit: number, leaseMs: number, nowMs = Date.now()): Promise<JobRow[]> {
      if (limit <= 0) return [];
      const rows = db.transaction(() => s.claimDue.all(owner, leaseMs, now(), nowMs, limit) as RawJob[]).immediate();
      return rows.map(jobOf).sort((a, b) => a.run_after - b.run_after || a.id - b.id);
    },
    nextDueAt: async () => (s.nextDue.get() as { t: number | null }).t,
    renew: async (id, owner, leaseMs) => s.renew.run(leaseMs, id, owner).changes === 1,
    async finish(id, owner, state, error, runAfterMs): Promise<FinishResult> {
      return db
        .transaction((): FinishResult => {
          const rerun = (s.rerunPending.get(id) as { rerun: number } | undefined)?.rerun === 1;
          const changed = s.finish.run({ state, error, run_after: runAfterMs, now_ms: Date.now(), now: now(), id, owner }).changes === 1;
          return changed ? (rerun ? 'requeued' : 'settled') : false;
        })
        .immediate();
    },
    requeueExpired: async () => s.requeueExpired.run(now()).changes,
    requeueFailed: async (nowMs = Date.now()) => s.requeueFailed.run(nowMs, now()).changes,
    pendingOf: async (seq) => count(s.pendingOf, seq),
    failedOf: async (seq) => count(s.failedOf, seq),
    pendingKind: async (kind) => count(s.pendingKind, kind),
  };
}
