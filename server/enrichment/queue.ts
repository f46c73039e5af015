import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import type { EnrichmentQueries, JobKind, JobRow } from '../db/enrichment-jobs.ts';
import type { Logger } from '../log.ts';

/** Outcome of a handler; throwing means "retry later". */
export type JobOutcome = 'success' | 'skipped';
export type JobHandler = (job: JobRow, signal: AbortSignal) => Promise<JobOutcome>;

/** Attempts before a job is marked failed. */
export const MAX_ATTEMPTS = 4;

/** Retry delay after attempt n (1-based): base × 4^(n−1) (2 s, 8 s, 32 s by default), capped at 5 min. */
export function backoffMs(attempt: number, baseMs = 2000): number {
  return Math.min(300_000, baseMs * 4 ** (attempt - 1));
}

/** Lease of a claimed job, ms: renewed every third of it while the handler runs. */
export const DEFAULT_LEASE_MS = 120_000;

/** The job runner of one server process. */
export interface JobRunner {
  /** Recover jobs whose lease ran out, retry failed ones once more, then start pumping. */
  start(): void;
  /** Look for due jobs now (after an enqueue); a no-op until `start` (one-shot CLI processes never claim jobs). */
  kick(): void;
  /** Stop taking jobs, abort running ones (they go back to the queue) and wait for them. */
  close(): Promise<void>;
}

/**
 * Durable job runner: jobs live in `enrichment_jobs` (SQLite), so they survive restarts; a job is
 * claimed atomically under a lease, run by its idempotent handler with bounded concurrency (p-queue,
 * https://github.com/sindresorhus/p-queue), and on error re-queued with exponential backoff until
 * `MAX_ATTEMPTS`. Several processes may share the queue: the lease is renewed while a handler runs,
 * and only jobs whose lease ran out (a dead process) are taken back, checked at start and on every
 * poll (`pollMs`, which also picks up jobs other processes queued). `onSettled` runs after each job
 * this runner settles, with its final state.
 */
export function createJobRunner(opts: {
  jobs: EnrichmentQueries;
  handlers: Record<JobKind, JobHandler>;
  concurrency: number;
  /** first retry delay, ms */
  retryBaseMs: number;
  /** lease of a claimed job, ms (default DEFAULT_LEASE_MS) */
  leaseMs?: number;
  /** interval of the queue poll, ms (default 30 s) */
  pollMs?: number;
  log: Logger;
  onSettled: (job: JobRow, state: 'done' | 'failed' | 'queued', outcome: JobOutcome | null) => void;
}): JobRunner {
  const { jobs, log } = opts;
  const queue = new PQueue({ concurrency: opts.concurrency });
  const abort = new AbortController();
  const owner = randomUUID();
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  let closed = false;
  let started = false;
  let timer: NodeJS.Timeout | null = null;
  let poller: NodeJS.Timeout | null = null;

  const schedule = (): void => {
    if (closed) return;
    const next = jobs.nextDueAt();
    if (timer) clearTimeout(timer);
    timer = null;
    if (next === null) return;
    timer = setTimeout(pump, Math.max(0, next - Date.now()) + 5);
    timer.unref();
  };

  const run = async (job: JobRow): Promise<void> => {
    const t0 = performance.now();
    const renew = setInterval(
      () => {
        if (!jobs.renew(job.id, owner, Date.now() + leaseMs))
          log.warn({ job: job.kind, asset_seq: job.asset_seq }, 'enrichment job lease lost to another runner');
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    try {
      const outcome = await opts.handlers[job.kind](job, abort.signal);
      clearInterval(renew);
      const settled = jobs.finish(job.id, owner, 'done', null, job.run_after);
      if (!settled) return; // another runner owns it now
      log.debug(
        {
          job: job.kind,
          asset_seq: job.asset_seq,
          outcome,
          duration_ms: Math.round(performance.now() - t0),
          rerun: settled === 'requeued',
        },
        'job done',
      );
      opts.onSettled(job, settled === 'requeued' ? 'queued' : 'done', outcome);
    } catch (err) {
      clearInterval(renew);
      const message = err instanceof Error ? err.message : String(err);
      if (abort.signal.aborted) {
        jobs.finish(job.id, owner, 'queued', message, Date.now());
        return;
      }
      const attempt = job.attempts + 1;
      const final = attempt >= MAX_ATTEMPTS;
      const settled = jobs.finish(
        job.id,
        owner,
        final ? 'failed' : 'queued',
        message,
        Date.now() + (final ? 0 : backoffMs(attempt, opts.retryBaseMs)),
      );
      if (!settled) return;
      log.warn(
        { job: job.kind, asset_seq: job.asset_seq, attempt, final, err: message, rerun: settled === 'requeued' },
        'enrichment job failed',
      );
      opts.onSettled(job, final && settled === 'settled' ? 'failed' : 'queued', null);
    }
  };

  /** Take back jobs of dead processes (expired leases). */
  const recover = (): void => {
    const n = jobs.requeueExpired();
    if (n > 0) log.info({ jobs: n }, 'resuming enrichment jobs whose runner stopped (lease expired)');
  };

  function pump(): void {
    if (closed || !started) return;
    const free = opts.concurrency - queue.size - queue.pending;
    if (free > 0) {
      for (const job of jobs.due(Date.now(), free)) {
        if (!jobs.claim(job.id, owner, Date.now() + leaseMs)) continue;
        void queue.add(() => run(job)).finally(pump);
      }
    }
    schedule();
  }

  return {
    start() {
      if (started || closed) return;
      started = true;
      recover();
      const f = jobs.requeueFailed();
      if (f > 0) log.info({ jobs: f }, 'retrying enrichment jobs that failed in a previous process');
      pump();
      poller = setInterval(() => {
        recover();
        pump();
      }, opts.pollMs ?? 30_000);
      poller.unref();
    },
    kick: () => queueMicrotask(pump),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (poller) clearInterval(poller);
      abort.abort();
      queue.clear();
      await queue.onIdle();
    },
  };
}
