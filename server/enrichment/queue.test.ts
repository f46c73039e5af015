import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { createJobQueue } from '../db/enrichment-jobs.ts';
import { migrate } from '../db/migrate.ts';
import { createLogger } from '../log.ts';
import { backoffMs, createJobRunner } from './queue.ts';

describe('job retry backoff', () => {
  it('grows ×4 from the base and caps at 5 min', () => {
    expect([1, 2, 3].map((n) => backoffMs(n))).toEqual([2000, 8000, 32000]);
    expect(backoffMs(2, 20)).toBe(80);
    expect(backoffMs(20)).toBe(300_000);
  });
});

describe('job leases (several processes on one database)', () => {
  const setup = () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = OFF');
    migrate(db);
    return { db, jobs: createJobQueue(db) };
  };
  const silent = createLogger('silent');
  const state = (db: Database.Database, seq: number) =>
    db.prepare('SELECT state, lease_owner FROM enrichment_jobs WHERE asset_seq = ?').get(seq) as {
      state: string;
      lease_owner: string | null;
    };

  it("takes back only jobs whose lease expired, never a live runner's job", async () => {
    const { db, jobs } = setup();
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
      },
      onSettled: () => undefined,
    });
    runner.start();
    await vi.waitFor(() => expect(ran).toEqual([dead!.asset_seq]));
    expect(state(db, dead!.asset_seq).state).toBe('done');
    expect(state(db, live!.asset_seq)).toEqual({ state: 'running', lease_owner: 'other-live-process' });
    await runner.close();
  });

  it('renews its lease while a handler runs, and a runner that lost its lease writes nothing', async () => {
    const { db, jobs } = setup();
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
      },
      onSettled: () => undefined,
    });
    runner.start();
    await vi.waitFor(() => expect(state(db, 7).state).toBe('running'));
    await new Promise((r) => setTimeout(r, 150)); // several lease lengths: renewals keep it alive
    expect(await jobs.requeueExpired()).toBe(0);
    // another process takes the job over (as after a long stall); the first runner's result is dropped
    db.prepare(`UPDATE enrichment_jobs SET lease_owner = 'usurper', lease_until = ? WHERE asset_seq = 7`).run(Date.now() + 60_000);
    release();
    await new Promise((r) => setTimeout(r, 50));
    expect(state(db, 7)).toEqual({ state: 'running', lease_owner: 'usurper' });
    await runner.close();
  });
});
