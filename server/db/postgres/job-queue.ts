import type { FinishResult, JobKind, JobQueue, JobRow } from '../ports/job-queue.ts';
import { inTransaction, type PgPool } from './pool.ts';

const JOB_COLUMNS = 'id, asset_seq, kind, state, attempts, rerun, run_after, last_error';
/** An `enrichment_jobs` row as PostgreSQL gives it: `rerun` smallint 0 or 1. */
type RawJob = Omit<JobRow, 'rerun'> & { rerun: number };
const jobOf = (r: RawJob): JobRow => ({ ...r, rerun: r.rerun === 1 });

/**
 * The database server's clock as epoch ms: leases are set and compared by it alone, so processes whose
 * own clocks disagree agree on whether a lease is live. `clock_timestamp()`, not `now()`: the time of
 * the statement, not of its transaction's start (https://www.postgresql.org/docs/15/functions-datetime.html#FUNCTIONS-DATETIME-CURRENT).
 */
export const PG_NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

const ENQUEUE = `INSERT INTO enrichment_jobs (asset_seq, kind, state, attempts, run_after, created_at, updated_at)
  VALUES ($1, $2, 'queued', 0, $3, now(), now())
  ON CONFLICT (asset_seq, kind) DO UPDATE SET
    state = CASE WHEN enrichment_jobs.state = 'running' THEN 'running' ELSE 'queued' END,
    rerun = CASE WHEN enrichment_jobs.state = 'running' THEN 1 ELSE 0 END,
    attempts = CASE WHEN enrichment_jobs.state = 'running' THEN enrichment_jobs.attempts ELSE 0 END,
    run_after = CASE WHEN enrichment_jobs.state = 'running' THEN enrichment_jobs.run_after ELSE excluded.run_after END,
    last_error = CASE WHEN enrichment_jobs.state = 'running' THEN enrichment_jobs.last_error ELSE NULL END,
    updated_at = excluded.updated_at`;

/**
 * The PostgreSQL `JobQueue` (table `enrichment_jobs` of postgres/migrations/0001). `claimDue` is one
 * statement, `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)`: concurrent runners of any process
 * lock disjoint due rows, and a row another runner claimed meanwhile no longer matches `state = 'queued'`
 * when rechecked, so no job is claimed twice (https://www.postgresql.org/docs/15/sql-select.html#SQL-FOR-UPDATE-SHARE).
 * Leases are set and compared by the database server's clock (`PG_NOW_MS`), never a process's.
 */
export function createPgJobQueue(pool: PgPool): JobQueue {
  const count = async (sql: string, params: unknown[]): Promise<number> => (await pool.query<{ n: number }>(sql, params)).rows[0]!.n;
  return {
    async enqueue(seq: number, kind: JobKind, runAfterMs = Date.now()) {
      await pool.query(ENQUEUE, [seq, kind, runAfterMs]);
    },
    async enqueueMany(seqs: number[], kind: JobKind, runAfterMs = Date.now()) {
      if (seqs.length === 0) return;
      await inTransaction(pool, async (c) => {
        for (const q of seqs) await c.query(ENQUEUE, [q, kind, runAfterMs]);
      });
    },
    async claimDue(owner, limit, leaseMs, nowMs = Date.now()) {
      if (limit <= 0) return [];
      const r = await pool.query<RawJob>(
        `UPDATE enrichment_jobs SET state = 'running', attempts = attempts + 1, lease_owner = $1, lease_until = ${PG_NOW_MS} + $2::bigint, updated_at = now()
         WHERE state = 'queued' AND id IN (
           SELECT id FROM enrichment_jobs WHERE state = 'queued' AND run_after <= $3 ORDER BY run_after, id LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING ${JOB_COLUMNS}`,
        [owner, leaseMs, nowMs, limit],
      );
      return r.rows.map(jobOf).sort((a, b) => a.run_after - b.run_after || a.id - b.id);
    },
    async nextDueAt() {
      return (await pool.query<{ t: number | null }>(`SELECT min(run_after) AS t FROM enrichment_jobs WHERE state = 'queued'`)).rows[0]!.t;
    },
    async renew(id, owner, leaseMs) {
      const r = await pool.query(
        `UPDATE enrichment_jobs SET lease_until = ${PG_NOW_MS} + $1::bigint WHERE id = $2 AND state = 'running' AND lease_owner = $3`,
        [leaseMs, id, owner],
      );
      return r.rowCount === 1;
    },
    async finish(id, owner, state, error, runAfterMs): Promise<FinishResult> {
      // The CTE reads (and locks) the row before the update, so its rerun flag is the one this update clears.
      const r = await pool.query<{ rerun: number }>(
        `WITH old AS (SELECT id, rerun FROM enrichment_jobs WHERE id = $1 AND state = 'running' AND lease_owner = $2 FOR UPDATE)
         UPDATE enrichment_jobs j SET
           state = CASE WHEN old.rerun = 1 THEN 'queued' ELSE $3::text END,
           last_error = $4,
           attempts = CASE WHEN old.rerun = 1 THEN 0 ELSE j.attempts END,
           run_after = CASE WHEN old.rerun = 1 THEN $5::bigint ELSE $6::bigint END,
           rerun = 0, lease_owner = NULL, lease_until = NULL, updated_at = now()
         FROM old WHERE j.id = old.id
         RETURNING old.rerun`,
        [id, owner, state, error, Date.now(), runAfterMs],
      );
      const row = r.rows[0];
      return row ? (row.rerun === 1 ? 'requeued' : 'settled') : false;
    },
    async requeueExpired() {
      const r = await pool.query(
        `UPDATE enrichment_jobs SET state = 'queued', rerun = 0, lease_owner = NULL, lease_until = NULL, updated_at = now()
         WHERE state = 'running' AND coalesce(lease_until, 0) < ${PG_NOW_MS}`,
      );
      return r.rowCount ?? 0;
    },
    async requeueFailed(nowMs = Date.now()) {
      const r = await pool.query(
        `UPDATE enrichment_jobs SET state = 'queued', attempts = 0, run_after = $1, updated_at = now() WHERE state = 'failed'`,
        [nowMs],
      );
      return r.rowCount ?? 0;
    },
    pendingOf: (seq) => count(`SELECT count(*) AS n FROM enrichment_jobs WHERE asset_seq = $1 AND state IN ('queued', 'running')`, [seq]),
    failedOf: (seq) => count(`SELECT count(*) AS n FROM enrichment_jobs WHERE asset_seq = $1 AND state = 'failed'`, [seq]),
    pendingKind: (kind) => count(`SELECT count(*) AS n FROM enrichment_jobs WHERE kind = $1 AND state IN ('queued', 'running')`, [kind]),
  };
}
