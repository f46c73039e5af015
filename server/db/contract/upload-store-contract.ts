import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { QuotaExceededError } from '../ports/storage-quota.ts';
import type { NewUpload, UploadStore } from '../ports/upload-store.ts';
import type { StoreFixture } from './fixture.ts';

const scope = { tenantId: 'tenant-a', workspaceId: 'ws-a' };
const other = { tenantId: 'tenant-a', workspaceId: 'ws-b' };
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

const upload = (over: Partial<NewUpload> = {}): NewUpload => ({
  id: randomUUID(),
  tenant_id: scope.tenantId,
  workspace_id: scope.workspaceId,
  status: 'receiving',
  filename: 'hero banner.jpg',
  size_bytes: 3 * 1024 * 1024 + 17,
  sha256: 'ab'.repeat(32),
  mime_type: 'image/jpeg',
  alt_text: 'A red shoe',
  tags: ['shoe', 'red'],
  purpose: 'hero',
  chunk_size_bytes: 524_288,
  chunk_count: 7,
  created_at: iso(T0 + 123),
  expires_at_ms: T0 + 3_600_000,
  panel_id: null,
  ...over,
});

/**
 * The behaviour every `UploadStore` must have, as vitest cases: round trip of every field, scoping and
 * expiry of scoped reads, the resume target and open count, chunk records (replaced when resent, dropped
 * by finish), metadata and life extension, a panel's imported uploads in completion order, the sweeper's
 * view, a session begun in one process continued in another, and the completion lease: one holder at a
 * time across processes, renewed by its owner, refusing abort and sweep while live, taken over once lapsed.
 */
export function uploadStoreContract(name: string, f: StoreFixture<UploadStore>): void {
  describe(`UploadStore contract: ${name}`, () => {
    it('stores every field; scoped reads see a live session of their own scope only', async () => {
      const { store } = await f.create();
      const u = upload();
      await store.insert(u);
      const want = { ...u, asset_id: null, error: null, updated_at: u.created_at };
      expect(await store.byId(scope, u.id.toUpperCase(), T0)).toEqual(want);
      expect(await store.byId(other, u.id, T0)).toBeUndefined();
      expect(await store.byId(scope, u.id, u.expires_at_ms)).toBeUndefined(); // expired at its time
      expect(await store.byId(scope, u.id, u.expires_at_ms - 1)).toEqual(want);
      expect(await store.exists(u.id)).toBe(true);
      expect(await store.exists(randomUUID())).toBe(false);
      await expect(store.insert(u)).rejects.toThrow(/unique|constraint|duplicate/i);
    });

    it('openOfFile finds the newest live receiving session of the same file; openCount counts live receiving and staged ones', async () => {
      const { store } = await f.create();
      const file = { sha256: 'cd'.repeat(32), size_bytes: 1000, filename: 'a.png', chunk_size_bytes: 524_288 };
      const older = upload({ ...file, created_at: iso(T0) });
      const newer = upload({ ...file, created_at: iso(T0 + 1) });
      await store.insert(older);
      await store.insert(newer);
      await store.insert(upload({ ...file, filename: 'b.png' }));
      const soon = upload({ ...file, created_at: iso(T0 + 2), expires_at_ms: T0 + 10 });
      await store.insert(soon);
      await store.insert(upload({ ...file, tenant_id: other.tenantId, workspace_id: other.workspaceId, created_at: iso(T0 + 3) }));
      expect((await store.openOfFile(scope, file, T0 + 5))!.id).toBe(soon.id);
      expect((await store.openOfFile(scope, file, T0 + 20))!.id).toBe(newer.id);
      expect(await store.openOfFile(scope, { ...file, chunk_size_bytes: 1024 }, T0)).toBeUndefined();
      expect(await store.openCount(scope, T0 + 5)).toBe(4);
      expect(await store.openCount(scope, T0 + 20)).toBe(3);
      await store.finish(newer.id, { status: 'staged', asset_id: null, error: null, at: iso(T0 + 30), expires_at_ms: T0 + 3_600_000 });
      expect((await store.openOfFile(scope, file, T0 + 40))!.id).toBe(older.id);
      expect(await store.openCount(scope, T0 + 40)).toBe(3); // a staged attachment keeps its place
      await store.finish(newer.id, { status: 'imported', asset_id: 'x', error: null, at: iso(T0 + 50), expires_at_ms: T0 + 3_600_000 });
      expect(await store.openCount(scope, T0 + 60)).toBe(2);
    });

    it('insert with a quota counts the live receiving and staged uploads of the whole tenant, and writes nothing when refused', async () => {
      const { store } = await f.create();
      const quota = { limitBytes: 3000, nowMs: T0 };
      await store.insert(upload({ size_bytes: 1000 }), { quota });
      const staged = upload({ size_bytes: 1000, workspace_id: other.workspaceId });
      await store.insert(staged, { quota });
      await store.finish(staged.id, { status: 'staged', asset_id: null, error: null, at: iso(T0), expires_at_ms: T0 + 3_600_000 });
      await store.insert(upload({ size_bytes: 5000, tenant_id: 'tenant-b', workspace_id: 'ws-c' }), {
        quota: { limitBytes: 5000, nowMs: T0 },
      });
      await store.insert(upload({ size_bytes: 9000, expires_at_ms: T0 })); // expired at T0: not counted
      const refused = upload({ size_bytes: 1001 });
      const e = await store.insert(refused, { quota }).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(QuotaExceededError);
      expect(e).toMatchObject({ limitBytes: 3000, requestedBytes: 1001, usage: { assetBytes: 0, stagedBytes: 2000 } });
      expect(await store.byId(scope, refused.id, T0)).toBeUndefined();
      await store.insert(upload({ size_bytes: 1000 }), { quota });
    });

    it('records chunks (a resent chunk replaces its size); finish sets the final state and drops them', async () => {
      const { store } = await f.create();
      const u = upload();
      await store.insert(u);
      await store.putChunk(u.id, 2, 100);
      await store.putChunk(u.id, 0, 524_288);
      await store.putChunk(u.id, 2, 524_288);
      expect(await store.chunks(u.id)).toEqual([
        { idx: 0, size_bytes: 524_288 },
        { idx: 2, size_bytes: 524_288 },
      ]);
      const error = { code: 'conflict', field: 'args.upload_id', message: 'sha256 mismatch' };
      await store.finish(u.id, { status: 'failed', asset_id: null, error, at: iso(T0 + 5000), expires_at_ms: T0 + 9_000_000 });
      expect(await store.chunks(u.id)).toEqual([]);
      expect(await store.byId(scope, u.id, T0 + 3_700_000)).toMatchObject({
        status: 'failed',
        error,
        updated_at: iso(T0 + 5000),
        expires_at_ms: T0 + 9_000_000,
      });
    });

    it('updateMeta replaces the user metadata, touch extends the life', async () => {
      const { store } = await f.create();
      const u = upload();
      await store.insert(u);
      const meta = { mime_type: null, alt_text: null, tags: ['new'], purpose: null, panel_id: 'p-1' };
      await store.updateMeta(u.id, meta);
      await store.touch(u.id, iso(T0 + 60_000), T0 + 7_200_000);
      expect(await store.byId(scope, u.id, T0 + 3_700_000)).toMatchObject({
        ...meta,
        updated_at: iso(T0 + 60_000),
        expires_at_ms: T0 + 7_200_000,
      });
      // an empty list of tags and none given (null) stay apart
      await store.updateMeta(u.id, { ...meta, tags: [] });
      expect((await store.byId(scope, u.id, T0 + 3_700_000))?.tags).toEqual([]);
      await store.updateMeta(u.id, { ...meta, tags: null });
      expect((await store.byId(scope, u.id, T0 + 3_700_000))?.tags).toBeNull();
    });

    it("lists a panel's live imported uploads in completion order", async () => {
      const { store } = await f.create();
      const panel = randomUUID();
      const ids: string[] = [];
      for (const [i, at] of [3, 1, 2].entries()) {
        const u = upload({ panel_id: panel });
        await store.insert(u);
        await store.finish(u.id, {
          status: 'imported',
          asset_id: `asset-${i}`,
          error: null,
          at: iso(T0 + at * 1000),
          expires_at_ms: T0 + 3_600_000,
        });
        ids[at] = u.id;
      }
      const staged = upload({ panel_id: panel });
      await store.insert(staged);
      await store.insert(upload({ panel_id: randomUUID() }));
      const got = await store.importedOfPanel(scope, panel.toUpperCase(), T0);
      expect(got.map((r) => r.id)).toEqual([ids[1], ids[2], ids[3]]);
      expect(got[0]).toMatchObject({ status: 'imported', asset_id: 'asset-1', panel_id: panel });
      expect(await store.importedOfPanel(other, panel, T0)).toEqual([]);
      expect(await store.importedOfPanel(scope, panel, T0 + 3_600_000)).toEqual([]);
    });

    it('the sweeper sees expired sessions of every scope, oldest first and bounded; remove drops a session with its chunks', async () => {
      const { store } = await f.create();
      const a = upload({ expires_at_ms: T0 + 20 });
      const b = upload({ expires_at_ms: T0 + 10, tenant_id: other.tenantId, workspace_id: other.workspaceId });
      const c = upload({ expires_at_ms: T0 + 30 });
      for (const u of [a, b, c]) await store.insert(u);
      await store.putChunk(a.id, 0, 10);
      expect(await store.expired(T0 + 25)).toEqual([b.id, a.id]);
      expect(await store.expired(T0 + 100, 2)).toEqual([b.id, a.id]);
      await store.remove(a.id);
      expect(await store.exists(a.id)).toBe(false);
      expect(await store.chunks(a.id)).toEqual([]);
      expect(await store.expired(T0 + 100)).toEqual([b.id, c.id]);
    });

    it('a session begun in one process is continued and completed in another', async () => {
      const { store, open } = await f.create();
      const u = upload();
      await store.insert(u);
      await store.putChunk(u.id, 0, 524_288);
      const second = await open();
      expect(await second.chunks(u.id)).toEqual([{ idx: 0, size_bytes: 524_288 }]);
      await second.putChunk(u.id, 1, 524_288);
      expect((await store.chunks(u.id)).map((c) => c.idx)).toEqual([0, 1]);
      await second.finish(u.id, { status: 'imported', asset_id: 'asset-x', error: null, at: iso(T0 + 1), expires_at_ms: T0 + 3_600_000 });
      expect(await store.byId(scope, u.id, T0)).toMatchObject({ status: 'imported', asset_id: 'asset-x' });
    });
    it('completion lease: one of two processes claims it; abort, sweep and others wait; its finish releases it', async () => {
      const { store, open } = await f.create();
      const second = await open();
      const u = upload({ expires_at_ms: T0 + 10 });
      await store.insert(u);
      const claims = await Promise.all([store.claimCompletion(u.id, 'p1', 60_000), second.claimCompletion(u.id, 'p2', 60_000)]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      const [owner, rival] = claims[0] ? ['p1', 'p2'] : ['p2', 'p1'];
      expect(await second.isCompleting(u.id)).toBe(true);
      expect(await second.renewCompletion(u.id, rival, 60_000)).toBe(false);
      expect(await second.renewCompletion(u.id, owner, 60_000)).toBe(true);
      expect(await second.abort(u.id, { at: iso(T0 + 1), expires_at_ms: T0 + 20 })).toBe(false);
      expect(await second.expired(T0 + 100)).toEqual([]); // expired, but held: not swept
      const done = { status: 'staged' as const, asset_id: null, error: null, at: iso(T0 + 2), expires_at_ms: T0 + 3_600_000 };
      expect(await second.finish(u.id, done, rival)).toBe(false);
      expect(await store.finish(u.id, done, owner)).toBe(true);
      expect(await second.isCompleting(u.id)).toBe(true); // staged keeps the lease: the import follows
      expect(await store.finish(u.id, { ...done, status: 'imported', asset_id: 'asset-1' }, owner)).toBe(true);
      expect(await second.isCompleting(u.id)).toBe(false);
      expect(await second.claimCompletion(u.id, rival, 60_000)).toBe(true); // a later complete of the imported upload
      await second.releaseCompletion(u.id, rival);
      expect(await store.isCompleting(u.id)).toBe(false);
    });

    it('a lapsed completion lease is taken over; the stale owner can no longer renew or finish; abort then lands', async () => {
      const { store, open } = await f.create();
      const second = await open();
      const u = upload();
      await store.insert(u);
      expect(await store.claimCompletion(u.id, 'crashed', -1)).toBe(true); // lease already over
      expect(await second.isCompleting(u.id)).toBe(false);
      expect(await second.claimCompletion(u.id, 'retry', 60_000)).toBe(true);
      expect(await store.renewCompletion(u.id, 'crashed', 60_000)).toBe(false);
      const done = { status: 'imported' as const, asset_id: 'stale', error: null, at: iso(T0 + 1), expires_at_ms: T0 + 3_600_000 };
      expect(await store.finish(u.id, done, 'crashed')).toBe(false);
      await second.releaseCompletion(u.id, 'retry');
      expect(await store.abort(u.id, { at: iso(T0 + 2), expires_at_ms: T0 + 3_600_000 })).toBe(true);
      expect(await second.byId(scope, u.id, T0)).toMatchObject({ status: 'aborted', asset_id: null });
      expect(await second.claimCompletion(u.id, 'late', 60_000)).toBe(false);
      expect(await second.abort(u.id, { at: iso(T0 + 3), expires_at_ms: T0 + 3_600_000 })).toBe(false);
    });
  });
}
