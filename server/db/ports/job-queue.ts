export type JobKind = 'analyze' | 'embed_text' | 'embed_image';
export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** One enrichment job as claimed. */
export interface JobRow {
  id: number;
  /** the asset's `seq` (SQLite `assets.seq`) */
  asset_seq: number;
  kind: JobKind;
  state: JobState;
  /** runs started so far, this claim included (a claimed job has attempts ≥ 1) */
  attempts: number;
  /** whether the job was asked to run again while running (it goes back to the queue when it settles) */
  rerun: boolean;
  /** epoch ms from which the job is due */
  run_after: number;
  last_error: string | null;
}

/** The lease a runner holds on a job it runs: writes conditional on it land only while it is held. */
export interface JobLease {
  jobId: number;
  owner: string;
}

/** A write conditional on a `JobLease` found the lease no longer held (expired, or taken by another runner): nothing was written. */
export class JobLeaseLostError extends Error {
  constructor(readonly lease: JobLease) {
    super(`enrichment job ${lease.jobId}: lease no longer held by ${lease.owner}; nothing written`);
    this.name = 'JobLeaseLostError';
  }
}

/** How a settled job left the runner: its final state, or back to the queue for a re-run requested meanwhile. */
export type FinishResult = 'settled' | 'requeued' | false;

/**
 * Port: the durable enrichment job queue, one job per (asset, kind). Runners (of any process) claim due
 * jobs under a lease they renew while they work; a job whose lease ran out (its process died) goes back
 * to the queue. Times are epoch ms. Leases are timed by the database's clock alone (callers pass
 * durations), so processes whose clocks disagree still agree on which leases are live; `run_after` (when
 * a job is due) comes from the callers' clocks, where a skew only moves a retry earlier or later.
 * Implementations: SQLite (server/db/sqlite/enrichment-jobs.ts) and
 * PostgreSQL (server/db/postgres/job-queue.ts); both pass server/db/contract/job-queue-contract.ts.
 */
export interface JobQueue {
  /** Queue (or re-queue, with fresh attempts) a job; a job already running is flagged to run again once it settles. */
  enqueue(seq: number, kind: JobKind, runAfterMs?: number): Promise<void>;
  /** `enqueue` for many assets in one transaction. */
  enqueueMany(seqs: number[], kind: JobKind, runAfterMs?: number): Promise<void>;
  /**
   * Atomically claim up to `limit` due jobs (queued, `run_after` ≤ `nowMs`), oldest due first, for
   * `owner` with a lease of `leaseMs` from now by the database's clock: each claimed job becomes
   * `running`, its attempts grow by one. Concurrent claims (any process) never return the same job twice.
   * @returns the claimed jobs as they are after the claim, ordered by run_after, id
   */
  claimDue(owner: string, limit: number, leaseMs: number, nowMs?: number): Promise<JobRow[]>;
  /** Epoch ms of the next queued job's `run_after`, or null when none is queued. */
  nextDueAt(): Promise<number | null>;
  /** Extend the lease of a job `owner` is running to `leaseMs` from now (database clock); false when the job is no longer its own. */
  renew(id: number, owner: string, leaseMs: number): Promise<boolean>;
  /**
   * Settle a job `owner` runs: `done`, `failed` (final), or `queued` again (a retry, due at `runAfterMs`).
   * A job flagged for a re-run (see `enqueue`) goes back to the queue at once with fresh attempts instead.
   * @returns 'settled' or 'requeued' (re-run requested meanwhile), or false (nothing written) when its lease was lost to another runner
   */
  finish(id: number, owner: string, state: 'done' | 'failed' | 'queued', error: string | null, runAfterMs: number): Promise<FinishResult>;
  /** Crash recovery: running jobs whose lease ended (by the database's clock) go back to the queue. @returns how many */
  requeueExpired(): Promise<number>;
  /** Give permanently failed jobs one more round, due at `nowMs` with fresh attempts. @returns how many */
  requeueFailed(nowMs?: number): Promise<number>;
  /** Jobs of one asset still queued or running. */
  pendingOf(seq: number): Promise<number>;
  /** Jobs of one asset that failed for good. */
  failedOf(seq: number): Promise<number>;
  /** Jobs of one kind still queued or running (a vector space is complete when none of its kind is). */
  pendingKind(kind: JobKind): Promise<number>;
}
