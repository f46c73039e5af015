import { randomUUID } from 'node:crypto';
import PQueue from 'p-queue';
import type { JobKind, JobLease, JobQueue, JobRow } from '../db/ports/job-queue.ts';
import type { Logger } from '../log.ts';

/** Outcome of a handler; throwing means "retry later". */
export type JobOutcome = 'success' | 'skipped';
/**
 * Runs one claimed job. `signal` aborts when the runner closes or the job's lease is lost to another
 * runner: a handler checks it before each write (`signal.throwIfAborted()`), and writes that must not
 * land from a stale run take `lease` so the store applies them only while the lease is still held.
 */
export type JobHandler = (job: JobRow, signal: AbortSignal, lease: JobLease) => Promise<JobOutcome>;

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
 * Durable job runner over a `JobQueue` port (SQLite or PostgreSQL), so jobs survive restarts; due jobs
 * are claimed atomically under a lease (`claimDue`), run by their idempotent handler with bounded
 * concurrency (p-queue, https://github.com/sindresorhus/p-queue), and on error re-queued with exponential
 * backoff until `MAX_ATTEMPTS`. Several processes may share the queue: the lease is renewed while a
 * handler runs, and only jobs whose lease ran out (a dead process) are taken back, checked at start and on
 * every poll (`pollMs`, which also picks up jobs other processes queued). Leases are timed by the
 * database's clock, so a process whose clock runs ahead never takes a live job; a handler whose lease was
 * lost is aborted (see `JobHandler`). `onSettled` runs (and is awaited) after each job this runner
 * settles, with its final state. Store errors during a poll are logged and retried at the next poll.
 */
export function createJobRunner(opts: {
  jobs: JobQueue;
  handlers: Record<JobKind, JobHandler>;
  concurrency: number;
  /** first retry delay, ms */
  retryBaseMs: number;
  /** lease of a claimed job, ms (default DEFAULT_LEASE_MS) */
  leaseMs?: number;
  /** interval of the queue poll, ms (default 30 s) */
  pollMs?: number;
  /**
   * TEST ONLY: this process's clock runs this far ahead (negative: behind), ms (ATELIER_TEST_CLOCK_OFFSET_MS).
   * It moves what the process times itself (due times of retries, its wake-up timer), never a lease.
   */
  clockOffsetMs?: number;
  log: Logger;
  onSettled: (job: JobRow, state: 'done' | 'failed' | 'queued', outcome: JobOutcome | null) => Promise<void> | void;
}): JobRunner {
  const { jobs, log } = opts;
  const queue = new PQueue({ concurrency: opts.concurrency });
  const abort = new AbortController();
  const owner = randomUUID();
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const clock = (): number => Date.now() + (opts.clockOffsetMs ?? 0);
  let closed = false;
  let started = false;
  let timer: NodeJS.Timeout | null = null;
  let poller: NodeJS.Timeout | null = null;
  /** store calls in flight outside the p-queue (polls, recovery), awaited by close */
  const inFlight = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>): void => {
    const t = p.catch((err: unknown) => log.error({ err }, 'enrichment queue store call failed')).finally(() => inFlight.delete(t));
    inFlight.add(t);
  };

  const schedule = async (): Promise<void> => {
    const next = await jobs.nextDueAt();
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = null;
    if (next === null) return;
    timer = setTimeout(() => track(pump()), Math.max(0, next - clock()) + 5);
    timer.unref();
  };

  const run = async (job: JobRow): Promise<void> => {
    const t0 = performance.now();
    // A renewal that finds the lease gone (this process stalled past it and another runner took the job)
    // stops the handler before its next write.
    const lost = new AbortController();
    const renew = setInterval(
      () =>
        track(
          jobs.renew(job.id, owner, leaseMs).then((own) => {
            if (own || lost.signal.aborted) return;
            log.warn({ job: job.kind, asset_seq: job.asset_seq }, 'enrichment job lease lost to another runner: its run stops');
            lost.abort(new Error('enrichment job lease lost to another runner'));
          }),
        ),
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    let outcome: JobOutcome;
    try {
      outcome = await opts.handlers[job.kind](job, AbortSignal.any([abort.signal, lost.signal]), { jobId: job.id, owner });
    } catch (err) {
      clearInterval(renew);
      const message = err instanceof Error ? err.message : String(err);
      if (abort.signal.aborted) {
        await jobs.finish(job.id, owner, 'queued', message, clock());
        return;
      }
      // job.attempts counts this run (claimDue increments it)
      const final = job.attempts >= MAX_ATTEMPTS;
      const settled = await jobs.finish(
        job.id,
        owner,
        final ? 'failed' : 'queued',
        message,
        clock() + (final ? 0 : backoffMs(job.attempts, opts.retryBaseMs)),
      );
      if (!settled) return;
      log.warn(
        { job: job.kind, asset_seq: job.asset_seq, attempt: job.attempts, final, err: message, rerun: settled === 'requeued' },
        'enrichment job failed',
      );
      await opts.onSettled(job, final && settled === 'settled' ? 'failed' : 'queued', null);
      return;
    }
    clearInterval(renew);
    const settled = await jobs.finish(job.id, owner, 'done', null, job.run_after);
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
    await opts.onSettled(job, settled === 'requeued' ? 'queued' : 'done', outcome);
  };

  /** Take back jobs of dead processes (expired leases). */
  const recover = async (): Promise<void> => {
    const n = await jobs.requeueExpired();
    if (n > 0) log.info({ jobs: n }, 'resuming enrichment jobs whose runner stopped (lease expired)');
  };

  // One claim at a time per runner: a pump requested while one runs makes that one go round again.
  let pumping = false;
  let again = false;
  async function pump(): Promise<void> {
    if (closed || !started) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        const free = opts.concurrency - queue.size - queue.pending;
        if (free > 0) {
          for (const job of await jobs.claimDue(owner, free, leaseMs, clock())) {
            if (closed) {
              // claimed while closing: straight back to the queue, due now (as a job aborted by close)
              await jobs.finish(job.id, owner, 'queued', job.last_error, clock());
              continue;
            }
            void queue
              .add(() => run(job))
              .catch((err: unknown) => log.error({ err, job: job.kind, asset_seq: job.asset_seq }, 'enrichment job settle failed'))
              .finally(() => track(pump()));
          }
        }
        await schedule();
      } while (again && !closed);
    } finally {
      pumping = false;
    }
  }

  return {
    start() {
      if (started || closed) return;
      started = true;
      track(
        (async () => {
          await recover();
          const f = await jobs.requeueFailed();
          if (f > 0) log.info({ jobs: f }, 'retrying enrichment jobs that failed in a previous process');
          await pump();
        })(),
      );
      poller = setInterval(() => track(recover().then(pump)), opts.pollMs ?? 30_000);
      poller.unref();
    },
    kick: () => queueMicrotask(() => track(pump())),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (poller) clearInterval(poller);
      abort.abort();
      queue.clear();
      await queue.onIdle();
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
