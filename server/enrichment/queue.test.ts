import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createJobQueue } from '../db/sqlite/enrichment-jobs.ts';
import type { JobQueue } from '../db/ports/job-queue.ts';
import { createPgJobQueue } from '../db/postgres/job-queue.ts';
import { createTestSchema, type TestSchema } from '../db/contract/pg-test-database.ts';
import { migrate } from '../db/sqlite/migrate.ts';
import { createLogger } from '../log.ts';
import { backoffMs, createJobRunner } from './queue.ts';

describe('job retry backoff', () => {
  it('grows ×4 from the base and caps at 5 min', () => {
    expect([1, 2, 3].map((n) => backoffMs(n))).toEqual([2000, 8000, 32000]);
    expect(backoffMs(2, 20)).toBe(80);
    expect(backoffMs(20)).toBe(300_000);
  });
});

/** One queue backend: the port, a raw look at a job's state, and a raw takeover (as another process would). */
interface Backend {
  jobs: JobQueue;
  state: (seq: number) => Promise<{ state: string; lease_owner: string | null }>;
  usurp: (seq: number, owner: string, leaseUntilMs: number) => Promise<void>;
}

const schemas: TestSchema[] = [];
afterAll(async () => {
  await Promise.all(schemas.map((s) => s.drop()));
});

const backends: [string, () => Promise<Backend>][] = [
  [
    'SQLite',
    async () => {
      const db = new Database(':memory:');
      db.pragma('foreign_keys = OFF');
      migrate(db);
      return {
        jobs: createJobQueue(db),
        state: async (seq) =>
          db.prepare('SELECT state, lease_owner FROM enrichment_jobs WHERE asset_seq = ?').get(seq) as {
            state: string;
            lease_owner: string | null;
          },
        usurp: async (seq, owner, until) =>
          void db.prepare('UPDATE enrichment_jobs SET lease_owner = ?, lease_until = ? WHERE asset_seq = ?').run(owner, until, seq),
      };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema();
      schemas.push(schema);
      const pool = schema.pool();
      return {
        jobs: createPgJobQueue(pool),
        state: async (seq) =>
          (
            await pool.query<{ state: string; lease_owner: string | null }>(
              'SELECT state, lease_owner FROM enrichment_jobs WHERE asset_seq = $1',
              [seq],
            )
          ).rows[0]!,
        usurp: async (seq, owner, until) =>
          void (await pool.query('UPDATE enrichment_jobs SET lease_owner = $1, lease_until = $2 WHERE asset_seq = $3', [
            owner,
            until,
            seq,
          ])),
      };
    },
  ],
];

describe.each(backends)('job leases (several processes on one database): %s', (_name, setup) => {
  const silent = createLogger('silent');

  it("takes back only jobs whose lease expired, never a live runner's job", async () => {
    const { jobs, state } = await setup();
    await jobs.enqueue(1, 'analyze');
    await jobs.enqueue(2, 'analyze');
    const [dead] = await jobs.claimDue('crashed-process', 1, -1);
    const [live] = await jobs.claimDue('other-live-process', 1, 60_000);
    const ran: number[] = [];
    const runner = createJobRunner({
      jobs,
      concurrency: 2,
      retryBaseMs: 10,
      log: silent,
      pollMs: 20,
      handlers: {
        analyze: async (j) => {
          ran.push(j.asset_seq);
          return 'success';
        },
        embed_text: async () => 'success',
        embed_image: async () => 'success',
      },
      onSettled: () => undefined,
    });
    runner.start();
    // settled once the handler returned (finish is a store round trip after it)
    await vi.waitFor(async () => expect((await state(dead!.asset_seq)).state).toBe('done'));
    expect(ran).toEqual([dead!.asset_seq]);
    expect(await state(live!.asset_seq)).toEqual({ state: 'running', lease_owner: 'other-live-process' });
    await runner.close();
  });

  it('renews its lease while a handler runs, and a runner that lost its lease writes nothing', async () => {
    const { jobs, state, usurp } = await setup();
    await jobs.enqueue(7, 'analyze');
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const runner = createJobRunner({
      jobs,
      concurrency: 1,
      retryBaseMs: 10,
      log: silent,
      leaseMs: 60,
      pollMs: 1_000_000,
      handlers: {
        analyze: async () => {
          await gate;
          return 'success';
        },
        embed_text: async () => 'success',
        embed_image: async () => 'success',
      },
      onSettled: () => undefined,
    });
    runner.start();
    await vi.waitFor(async () => expect((await state(7)).state).toBe('running'));
    await new Promise((r) => setTimeout(r, 150)); // several lease lengths: renewals keep it alive
    expect(await jobs.requeueExpired()).toBe(0);
    // another process takes the job over (as after a long stall); the first runner's result is dropped
    await usurp(7, 'usurper', Date.now() + 60_000);
    release();
    await new Promise((r) => setTimeout(r, 50));
    expect(await state(7)).toEqual({ state: 'running', lease_owner: 'usurper' });
    await runner.close();
  });
  it('a runner whose clock runs ten minutes ahead never takes back a live job of another process', async () => {
    const { jobs, state } = await setup();
    await jobs.enqueue(21, 'analyze');
    const [live] = await jobs.claimDue('other-live-process', 1, 60_000);
    const ran: number[] = [];
    const skewed = createJobRunner({
      jobs,
      concurrency: 1,
      retryBaseMs: 10,
      log: silent,
      pollMs: 20,
      clockOffsetMs: 10 * 60_000,
      handlers: {
        analyze: async (j) => {
          ran.push(j.asset_seq);
          return 'success';
        },
        embed_text: async () => 'success',
        embed_image: async () => 'success',
      },
      onSettled: () => undefined,
    });
    skewed.start();
    await new Promise((r) => setTimeout(r, 300)); // its start-up recovery and about fifteen polls
    await skewed.close();
    expect(ran).toEqual([]);
    expect(await state(live!.asset_seq)).toEqual({ state: 'running', lease_owner: 'other-live-process' });
  });

  it('a handler whose lease was lost is aborted before its next write', async () => {
    const { jobs, state, usurp } = await setup();
    await jobs.enqueue(8, 'analyze');
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const writes: string[] = [];
    const runner = createJobRunner({
      jobs,
      concurrency: 1,
      retryBaseMs: 10,
      log: silent,
      leaseMs: 60,
      pollMs: 1_000_000,
      handlers: {
        analyze: async (_job, signal) => {
          await gate;
          signal.throwIfAborted(); // what every handler does before it writes
          writes.push('analysis');
          return 'success';
        },
        embed_text: async () => 'success',
        embed_image: async () => 'success',
      },
      onSettled: () => undefined,
    });
    runner.start();
    await vi.waitFor(async () => expect((await state(8)).state).toBe('running'));
    await usurp(8, 'usurper', Date.now() + 60_000);
    await new Promise((r) => setTimeout(r, 100)); // a renewal (every 20 ms) finds the lease lost
    release();
    await new Promise((r) => setTimeout(r, 50));
    expect(writes).toEqual([]);
    expect(await state(8)).toEqual({ state: 'running', lease_owner: 'usurper' });
    await runner.close();
  });
});
