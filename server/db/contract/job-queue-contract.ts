import { describe, expect, it } from 'vitest';
import type { JobQueue, JobRow } from '../ports/job-queue.ts';
import type { StoreFixture } from './fixture.ts';

const LEASE = 60_000;

/**
 * The behaviour every `JobQueue` must have, as vitest cases: enqueue (and re-enqueue of a running job
 * as a re-run), atomic claims of due jobs under a lease in due order, renew and finish only by the lease
 * owner, retries due later, failed jobs and their second round, expired leases taken back, counts, and
 * two processes claiming the same due jobs concurrently without ever claiming one twice.
 */
export function jobQueueContract(name: string, f: StoreFixture<JobQueue>): void {
  describe(`JobQueue contract: ${name}`, () => {
    it('claims due jobs atomically in due order, with a lease and one more attempt; future jobs wait', async () => {
      const { store: q } = await f.create();
      const t = Date.now();
      await q.enqueue(3, 'analyze', t - 100);
      await q.enqueue(1, 'analyze', t - 300);
      await q.enqueue(2, 'embed_text', t - 200);
      await q.enqueue(4, 'analyze', t + 60_000);
      expect(await q.nextDueAt()).toBe(t - 300);
      const got = await q.claimDue('runner-1', 2, LEASE, t);
      expect(got.map((j) => [j.asset_seq, j.kind])).toEqual([
        [1, 'analyze'],
        [2, 'embed_text'],
      ]);
      expect(got[0]).toEqual({
        id: expect.any(Number),
        asset_seq: 1,
        kind: 'analyze',
        state: 'running',
        attempts: 1,
        rerun: false,
        run_after: t - 300,
        last_error: null,
      } satisfies JobRow);
      expect((await q.claimDue('runner-2', 10, LEASE, t)).map((j) => j.asset_seq)).toEqual([3]);
      expect(await q.claimDue('runner-2', 10, LEASE, t)).toEqual([]);
      expect(await q.claimDue('runner-2', 0, LEASE, t + 120_000)).toEqual([]);
      expect(await q.nextDueAt()).toBe(t + 60_000);
      expect((await q.claimDue('runner-2', 10, LEASE, t + 60_000)).map((j) => j.asset_seq)).toEqual([4]);
      expect(await q.nextDueAt()).toBeNull();
      expect(await q.pendingKind('analyze')).toBe(3);
      expect(await q.pendingKind('embed_text')).toBe(1);
    });

    it('only the lease owner renews or settles; a done job leaves the pending counts', async () => {
      const { store: q } = await f.create();
      await q.enqueue(7, 'analyze');
      const [job] = await q.claimDue('owner', 1, LEASE);
      expect(await q.renew(job!.id, 'intruder', LEASE)).toBe(false);
      expect(await q.renew(job!.id, 'owner', LEASE)).toBe(true);
      expect(await q.finish(job!.id, 'intruder', 'done', null, 0)).toBe(false);
      expect(await q.pendingOf(7)).toBe(1);
      expect(await q.finish(job!.id, 'owner', 'done', null, job!.run_after)).toBe('settled');
      expect(await q.finish(job!.id, 'owner', 'done', null, job!.run_after)).toBe(false);
      expect(await q.renew(job!.id, 'owner', LEASE)).toBe(false);
      expect(await q.pendingOf(7)).toBe(0);
      expect(await q.pendingKind('analyze')).toBe(0);
    });

    it('a retry is due later with its error and attempts kept; a final failure counts until requeueFailed', async () => {
      const { store: q } = await f.create();
      const t = Date.now();
      await q.enqueue(5, 'embed_text', t);
      const [first] = await q.claimDue('r', 1, LEASE, t);
      expect(await q.finish(first!.id, 'r', 'queued', 'embedder down', t + 5_000)).toBe('settled');
      expect(await q.claimDue('r', 1, LEASE, t + 4_999)).toEqual([]);
      const [second] = await q.claimDue('r', 1, LEASE, t + 5_000);
      expect(second).toMatchObject({ id: first!.id, attempts: 2, last_error: 'embedder down', run_after: t + 5_000 });
      expect(await q.finish(second!.id, 'r', 'failed', 'still down', t + 5_000)).toBe('settled');
      expect(await q.failedOf(5)).toBe(1);
      expect(await q.pendingOf(5)).toBe(0);
      expect(await q.requeueFailed(t + 10_000)).toBe(1);
      expect(await q.failedOf(5)).toBe(0);
      const [third] = await q.claimDue('r', 1, LEASE, t + 10_000);
      expect(third).toMatchObject({ attempts: 1, run_after: t + 10_000 });
    });

    it('enqueue of a running job flags a re-run: it settles as requeued, due at once with fresh attempts', async () => {
      const { store: q } = await f.create();
      await q.enqueue(9, 'analyze');
      const [job] = await q.claimDue('r', 1, LEASE);
      await q.enqueue(9, 'analyze', Date.now() + 999_999);
      expect(await q.pendingOf(9)).toBe(1);
      expect(await q.claimDue('other', 5, LEASE)).toEqual([]); // still running: not claimable
      expect(await q.finish(job!.id, 'r', 'failed', 'boom', 0)).toBe('requeued');
      const [again] = await q.claimDue('r', 1, LEASE);
      expect(again).toMatchObject({ id: job!.id, attempts: 1, rerun: false, state: 'running' });
      expect(await q.finish(again!.id, 'r', 'done', null, again!.run_after)).toBe('settled');
      // enqueue of a settled job queues it again from scratch
      await q.enqueue(9, 'analyze');
      expect(await q.pendingOf(9)).toBe(1);
    });

    it('an expired lease is taken back and claimed by another runner; a live lease is not', async () => {
      const { store: q, open } = await f.create();
      const other = await open();
      await q.enqueueMany([11, 12], 'analyze');
      const [dead] = await q.claimDue('crashed-process', 1, -1); // lease already over
      const [live] = await q.claimDue('live-process', 1, LEASE);
      expect(await other.claimDue('other', 5, LEASE)).toEqual([]);
      expect(await other.requeueExpired()).toBe(1);
      const [taken] = await other.claimDue('other', 5, LEASE);
      expect(taken).toMatchObject({ id: dead!.id, asset_seq: dead!.asset_seq, attempts: 2 });
      expect(await q.finish(dead!.id, 'crashed-process', 'done', null, 0)).toBe(false); // its result is dropped
      expect(await q.renew(live!.id, 'live-process', LEASE)).toBe(true);
      expect(await other.requeueExpired()).toBe(0);
    });

    it('two processes claiming the same due jobs concurrently never claim one twice', async () => {
      const { store: a, open } = await f.create();
      const b = await open();
      const seqs = Array.from({ length: 60 }, (_, i) => 100 + i);
      await a.enqueueMany(seqs, 'analyze', Date.now() - 1000);
      const claimed: { by: string; job: JobRow }[] = [];
      const drain = async (q: JobQueue, by: string): Promise<void> => {
        // Two claims in flight per process at a time; a process stops when a round claims nothing.
        for (;;) {
          const jobs = (await Promise.all([q.claimDue(by, 3, LEASE), q.claimDue(by, 2, LEASE)])).flat();
          if (jobs.length === 0) return;
          for (const job of jobs) claimed.push({ by, job });
        }
      };
      await Promise.all([drain(a, 'process-a'), drain(b, 'process-b'), drain(a, 'process-a2'), drain(b, 'process-b2')]);
      const ids = claimed.map((c) => c.job.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(claimed.map((c) => c.job.asset_seq).sort((x, y) => x - y)).toEqual(seqs);
      expect(claimed.every((c) => c.job.attempts === 1)).toBe(true);
      // every claim is the claimer's: only it can settle
      for (const c of claimed.slice(0, 10))
        expect(await (c.by.startsWith('process-a') ? b : a).finish(c.job.id, 'nobody', 'done', null, 0)).toBe(false);
      for (const c of claimed) expect(await a.finish(c.job.id, c.by, 'done', null, 0)).toBe('settled');
      expect(await b.pendingKind('analyze')).toBe(0);
    });
  });
}
