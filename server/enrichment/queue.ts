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

/** The job runner of one server process. */
export interface JobRunner {
  /** Recover jobs a dead process left running, retry failed ones once more, then start pumping. */
  start(): void;
  /** Look for due jobs now (after an enqueue). */
  kick(): void;
  /** Stop taking jobs, abort running ones (they go back to the queue) and wait for them. */
  close(): Promise<void>;
}

/**
 * Durable job runner: jobs live in `enrichment_jobs` (SQLite), so they survive restarts; a job is
 * claimed atomically, run by its idempotent handler with bounded concurrency (p-queue,
 * https://github.com/sindresorhus/p-queue), and on error re-queued with exponential backoff until
 * `MAX_ATTEMPTS`. `onSettled` runs after each job with its final state.
 */
export function createJobRunner(opts: {
  jobs: EnrichmentQueries;
  handlers: Record<JobKind, JobHandler>;
  concurrency: number;
  /** first retry delay, ms */
  retryBaseMs: number;
  log: Logger;
  onSettled: (job: JobRow, state: 'done' | 'failed' | 'queued', outcome: JobOutcome | null) => void;
}): JobRunner {
  const { jobs, log } = opts;
  const queue = new PQueue({ concurrency: opts.concurrency });
  const abort = new AbortController();
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

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
    try {
      const outcome = await opts.handlers[job.kind](job, abort.signal);
      jobs.finish(job.id, 'done', null, job.run_after);
      log.debug({ job: job.kind, asset_seq: job.asset_seq, outcome, duration_ms: Math.round(performance.now() - t0) }, 'job done');
      opts.onSettled(job, 'done', outcome);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (abort.signal.aborted) {
        jobs.finish(job.id, 'queued', message, Date.now());
        return;
      }
      const attempt = job.attempts + 1;
      const final = attempt >= MAX_ATTEMPTS;
      jobs.finish(job.id, final ? 'failed' : 'queued', message, Date.now() + (final ? 0 : backoffMs(attempt, opts.retryBaseMs)));
      log.warn({ job: job.kind, asset_seq: job.asset_seq, attempt, final, err: message }, 'enrichment job failed');
      opts.onSettled(job, final ? 'failed' : 'queued', null);
    }
  };

  function pump(): void {
    if (closed) return;
    const free = opts.concurrency - queue.size - queue.pending;
    if (free > 0) {
      for (const job of jobs.due(Date.now(), free)) {
        if (!jobs.claim(job.id)) continue;
        void queue.add(() => run(job)).finally(pump);
      }
    }
    schedule();
  }

  return {
    start() {
      const n = jobs.requeueRunning();
      if (n > 0) log.info({ jobs: n }, 'resuming enrichment jobs left running by a previous process');
      const f = jobs.requeueFailed();
      if (f > 0) log.info({ jobs: f }, 'retrying enrichment jobs that failed in a previous process');
      pump();
    },
    kick: () => queueMicrotask(pump),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      abort.abort();
      queue.clear();
      await queue.onIdle();
    },
  };
}
