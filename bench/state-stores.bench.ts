/**
 * The state stores of issue 16 on both backends, interleaved in one process: latency of one credit
 * reserve + settle, one picker insert + finish + read, one job enqueue + claimDue + finish, and the
 * throughput of 16 concurrent reserves from two connections (two "processes") against one budget.
 * SQLite: a WAL file as the server opens it (openDb); PostgreSQL: the test database of the machine
 * (ATELIER_TEST_POSTGRES_URL overrides) in a throwaway schema. No target: a baseline for the move to
 * PostgreSQL, where every call is a network round trip instead of an in-process call.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDb } from '../server/db/sqlite/connection.ts';
import { createSqliteCreditStore } from '../server/db/sqlite/credits.ts';
import { createJobQueue } from '../server/db/sqlite/enrichment-jobs.ts';
import { createSqlitePickerStore } from '../server/db/sqlite/pickers.ts';
import type { CreditStore } from '../server/db/ports/credit-store.ts';
import type { JobQueue } from '../server/db/ports/job-queue.ts';
import type { PickerStore } from '../server/db/ports/picker-store.ts';
import { createPgCreditStore } from '../server/db/postgres/credits.ts';
import { createPgJobQueue } from '../server/db/postgres/job-queue.ts';
import { createPgPickerStore } from '../server/db/postgres/pickers.ts';
import { createTestSchema } from '../server/db/contract/pg-test-database.ts';
import { backendTable } from './stats.ts';

interface Stores {
  name: string;
  credits: [CreditStore, CreditStore];
  pickers: PickerStore;
  jobs: JobQueue;
}

const ROUNDS = 5;
const PER_ROUND = 60;
const scope = { tenantId: 't', workspaceId: 'w' };

export default async function stateStoresBench(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-state-bench-'));
  const file = path.join(dir, 'state.db');
  const a = openDb(file);
  const b = openDb(file);
  for (const db of [a, b]) db.pragma('foreign_keys = OFF');
  const schema = await createTestSchema();
  const pa = schema.pool();
  const pb = schema.pool();
  const backends: Stores[] = [
    {
      name: 'SQLite',
      credits: [createSqliteCreditStore(a), createSqliteCreditStore(b)],
      pickers: createSqlitePickerStore(a),
      jobs: createJobQueue(a),
    },
    {
      name: 'PostgreSQL',
      credits: [createPgCreditStore(pa), createPgCreditStore(pb)],
      pickers: createPgPickerStore(pa),
      jobs: createPgJobQueue(pa),
    },
  ];
  const samples = new Map<string, number[]>();
  const add = (key: string, ms: number): void => void samples.set(key, [...(samples.get(key) ?? []), ms]);
  let seq = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // interleaved: each round measures every operation on both backends
      for (const s of backends) {
        for (let i = 0; i < PER_ROUND; i++) {
          let t = performance.now();
          const h = await s.credits[0].reserve(scope, 1, null, 60_000);
          if (h.ok) await s.credits[0].settle(scope, h.holdId, { assetId: null, provider: 'p', model: 'm', credits: 1 });
          add(`${s.name}|credit reserve + settle`, performance.now() - t);

          t = performance.now();
          const id = randomUUID();
          const now = new Date().toISOString();
          await s.pickers.insert(
            {
              id,
              themeId: 'th',
              delivery: 'panel',
              status: 'awaiting_user',
              request: { query: 'x' },
              selection: [],
              createdAt: now,
              confirmedAt: null,
            },
            scope,
          );
          await s.pickers.finish(scope, id, 'confirmed', ['a', 'b'], now);
          await s.pickers.byId(scope, id);
          add(`${s.name}|picker insert + finish + read`, performance.now() - t);

          t = performance.now();
          await s.jobs.enqueue(++seq, 'analyze', Date.now() - 1);
          const [job] = await s.jobs.claimDue('bench', 1, 60_000);
          if (job) await s.jobs.finish(job.id, 'bench', 'done', null, job.run_after);
          add(`${s.name}|job enqueue + claimDue + finish`, performance.now() - t);
        }
        const budget = { tenantId: 't', workspaceId: `w-${s.name}-${round}` };
        const t = performance.now();
        const r = await Promise.all(Array.from({ length: 16 }, (_, i) => s.credits[i % 2]!.reserve(budget, 1, 8, 60_000)));
        add(`${s.name}|16 concurrent reserves, 2 connections (budget 8)`, performance.now() - t);
        if (r.filter((x) => x.ok).length !== 8)
          throw new Error(`${s.name}: ${r.filter((x) => x.ok).length} of 16 reserves granted against a budget of 8`);
      }
    }
  } finally {
    a.close();
    b.close();
    await schema.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  process.stdout.write(`load average ${load}; ${ROUNDS} interleaved rounds\n`);
  backendTable(samples);
}
