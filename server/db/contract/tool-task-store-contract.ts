import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NewToolTask, ToolTaskStore } from '../ports/tool-task-store.ts';
import type { StoreFixture } from './fixture.ts';

const T0 = Date.parse('2026-03-01T10:00:00.123Z');
const iso = (ms: number): string => new Date(ms).toISOString();

const task = (over: Partial<NewToolTask> = {}): NewToolTask => ({
  id: randomUUID(),
  tenantId: 't',
  tool: 'svc_drafts',
  action: 'asset_generate',
  owner: 'runner-1',
  createdAt: iso(T0),
  ttlMs: 3_600_000,
  leaseUntilMs: T0 + 60_000,
  ...over,
});

const RESULT = { content: [{ type: 'text', text: 'done' }], structuredContent: { asset_id: 'a', notes: ['x', 'y'] } };

/**
 * The behaviour every `ToolTaskStore` must have, as vitest cases: a new task reads back working in its
 * tenant only; renewals keep the lease and the latest message and report a cancel request; `finish` ends a
 * task once and only for its owner; cancel requests on working, ended and missing tasks; a stale lease
 * ended as failed; expiry and the sweep; a task written by one process read by another.
 * The fixture's database has tenant `t` (workspaces `w`, `w2`).
 */
export function toolTaskStoreContract(name: string, f: StoreFixture<ToolTaskStore>): void {
  describe(`ToolTaskStore contract: ${name}`, () => {
    it('a new task is working, without message or outcome, in its tenant only (ids case-insensitive)', async () => {
      const { store } = await f.create();
      const t = task();
      await store.create(t);
      expect(await store.get('t', t.id.toUpperCase(), T0)).toEqual({
        id: t.id,
        tenantId: 't',
        tool: 'svc_drafts',
        action: 'asset_generate',
        status: 'working',
        statusMessage: null,
        outcome: null,
        cancelRequested: false,
        leaseUntilMs: T0 + 60_000,
        createdAt: iso(T0),
        updatedAt: iso(T0),
        ttlMs: 3_600_000,
      });
      expect(await store.get('other-tenant', t.id, T0)).toBeUndefined();
      expect(await store.get('t', randomUUID(), T0)).toBeUndefined();
      await expect(store.create(t)).rejects.toThrow(/unique|constraint|duplicate/i);
    });

    it('renew stores a changed message with its time, keeps the last one on null, and only for the owner while working', async () => {
      const { store } = await f.create();
      const t = task();
      await store.create(t);
      expect(await store.renew(t.id, 'runner-1', 'step 1', T0 + 90_000, iso(T0 + 1000))).toEqual({ cancelRequested: false });
      expect(await store.renew(t.id, 'runner-1', 'step 1', T0 + 95_000, iso(T0 + 2000))).toEqual({ cancelRequested: false });
      expect(await store.renew(t.id, 'runner-1', null, T0 + 99_000, iso(T0 + 3000))).toEqual({ cancelRequested: false });
      expect(await store.get('t', t.id, T0)).toMatchObject({
        statusMessage: 'step 1',
        updatedAt: iso(T0 + 1000),
        leaseUntilMs: T0 + 99_000,
      });
      expect(await store.renew(t.id, 'runner-2', 'not mine', T0 + 99_000, iso(T0 + 4000))).toBeNull();
      // the lease moved: a staleness check before it leaves the task alone
      expect(await store.abandonStale(t.id, T0 + 98_000, 'stopped', { code: -32603, message: 'x' }, iso(T0))).toBe(false);
      expect(await store.get('t', t.id, T0)).toMatchObject({ status: 'working', statusMessage: 'step 1' });
    });

    it('finish ends a working task once, for its owner only, with the outcome as stored JSON', async () => {
      const { store } = await f.create();
      const t = task();
      await store.create(t);
      expect(await store.finish(t.id, 'runner-2', 'completed', 'done', RESULT, iso(T0 + 5000))).toBe(false);
      const both = await Promise.all([
        store.finish(t.id, 'runner-1', 'completed', 'done', RESULT, iso(T0 + 5000)),
        store.finish(t.id, 'runner-1', 'failed', 'boom', { code: -32603, message: 'boom' }, iso(T0 + 6000)),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      const row = (await store.get('t', t.id, T0))!;
      expect([row.status, row.outcome]).toEqual(
        row.status === 'completed' ? ['completed', RESULT] : ['failed', { code: -32603, message: 'boom' }],
      );
      expect(await store.renew(t.id, 'runner-1', 'late', T0 + 99_000, iso(T0 + 7000))).toBeNull();
    });

    it('a cancel request on a working task is reported to its owner; on an ended or missing one it says so', async () => {
      const { store } = await f.create();
      const t = task();
      await store.create(t);
      expect(await store.requestCancel('other-tenant', t.id, T0)).toBe('missing');
      expect(await store.requestCancel('t', t.id.toUpperCase(), T0)).toBe('requested');
      expect((await store.get('t', t.id, T0))!.cancelRequested).toBe(true);
      expect(await store.renew(t.id, 'runner-1', null, T0 + 70_000, iso(T0 + 1000))).toEqual({ cancelRequested: true });
      expect(await store.finish(t.id, 'runner-1', 'cancelled', 'cancelled by the client', null, iso(T0 + 2000))).toBe(true);
      expect(await store.requestCancel('t', t.id, T0)).toBe('terminal');
      expect(await store.requestCancel('t', randomUUID(), T0)).toBe('missing');
    });

    it('a working task whose lease ran out is ended as failed; an ended one is left as it is', async () => {
      const { store } = await f.create();
      const t = task();
      await store.create(t);
      const error = { code: -32603, message: 'the server process running this task stopped' };
      expect(await store.abandonStale(t.id, T0 + 59_999, 'stopped', error, iso(T0 + 59_999))).toBe(false);
      expect(await store.abandonStale(t.id, T0 + 60_001, 'stopped', error, iso(T0 + 60_001))).toBe(true);
      expect(await store.get('t', t.id, T0)).toMatchObject({ status: 'failed', statusMessage: 'stopped', outcome: error });
      expect(await store.finish(t.id, 'runner-1', 'completed', 'late', RESULT, iso(T0 + 61_000))).toBe(false);
      const done = task();
      await store.create(done);
      await store.finish(done.id, 'runner-1', 'completed', 'done', RESULT, iso(T0 + 1000));
      expect(await store.abandonStale(done.id, T0 + 120_000, 'stopped', error, iso(T0))).toBe(false);
    });

    it('a task reads as missing once its TTL passed and the sweep deletes it; younger ones stay', async () => {
      const { store } = await f.create();
      const old = task({ ttlMs: 1000 });
      const young = task({ ttlMs: 10_000 });
      await store.create(old);
      await store.create(young);
      expect(await store.get('t', old.id, T0 + 999)).toBeDefined();
      expect(await store.get('t', old.id, T0 + 1000)).toBeUndefined();
      expect(await store.requestCancel('t', old.id, T0 + 1000)).toBe('missing');
      expect(await store.sweep(T0 + 5000)).toBe(1);
      expect(await store.get('t', old.id, T0)).toBeUndefined();
      expect(await store.get('t', young.id, T0 + 5000)).toBeDefined();
    });

    it('another process sees the task, its cancel request reaches the owner, and it reads the outcome', async () => {
      const h = await f.create();
      const other = await h.open();
      const t = task();
      await h.store.create(t);
      expect(await other.get('t', t.id, T0)).toMatchObject({ status: 'working' });
      expect(await other.requestCancel('t', t.id, T0)).toBe('requested');
      expect(await h.store.renew(t.id, 'runner-1', 'stopping', T0 + 70_000, iso(T0 + 1000))).toEqual({ cancelRequested: true });
      await h.store.finish(t.id, 'runner-1', 'cancelled', 'cancelled by the client', null, iso(T0 + 2000));
      expect(await other.get('t', t.id, T0)).toMatchObject({
        status: 'cancelled',
        statusMessage: 'cancelled by the client',
        outcome: null,
      });
    });
  });
}
