import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { collectBlobGarbage } from './blob-gc.ts';
import { sha256Hex, type BlobStore } from './blob-store.ts';

/** What the contract needs from one implementation (the model: Keyv's `@keyv/test-suite`). */
export interface BlobStoreFixture {
  /** a fresh, empty store */
  create(): Promise<BlobStore>;
  /** Leave what a writer killed mid-write leaves behind for `bytes` (local: a temp file; S3: an incomplete multipart upload). */
  crashMidWrite(store: BlobStore, bytes: Buffer): Promise<void>;
  /** a blob size that this store writes in several requests (S3: more than one multipart part), bytes */
  largeBytes: number;
}

const text = async (s: Readable): Promise<Buffer> => {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
};
const all = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

/**
 * The behaviour every `BlobStore` must have, as vitest cases: content addressing, idempotent `put` that
 * renews the write time, whole and ranged reads, absence as an answer, listing, `removeIfUnused`
 * decisions, crash leftovers collected by the GC past the grace period, and large blobs.
 */
export function blobStoreContract(name: string, f: BlobStoreFixture): void {
  describe(`BlobStore contract: ${name}`, () => {
    it('put is content-addressed and idempotent; get, stat and has read it back', async () => {
      const s = await f.create();
      await s.check();
      const bytes = randomBytes(4096);
      const a = await s.put(bytes);
      expect(a).toEqual({ sha256: sha256Hex(bytes), sizeBytes: 4096, renewed: false });
      expect(await s.put(bytes)).toEqual({ ...a, renewed: true });
      expect((await s.get(a.sha256)).equals(bytes)).toBe(true);
      expect(await s.has(a.sha256)).toBe(true);
      expect(await s.stat(a.sha256)).toMatchObject({ sizeBytes: 4096 });
      expect(await all(s.list())).toEqual([{ sha256: a.sha256, sizeBytes: 4096, mtimeMs: expect.any(Number) }]);
    });

    it('absence is an answer: has false, stat and read null, get ENOENT, remove false', async () => {
      const s = await f.create();
      const sha = sha256Hex(Buffer.from('never stored'));
      expect(await s.has(sha)).toBe(false);
      expect(await s.stat(sha)).toBeNull();
      expect(await s.read(sha)).toBeNull();
      await expect(s.get(sha)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await s.remove(sha)).toBe(false);
      expect(await s.removeIfUnused(sha, () => true)).toBe(0);
      await expect(s.has('../etc/passwd')).rejects.toThrow(/not a sha256 key/);
    });

    it('read streams the whole blob or an inclusive byte range', async () => {
      const s = await f.create();
      const bytes = randomBytes(10_000);
      const { sha256 } = await s.put(bytes);
      expect((await text((await s.read(sha256))!)).equals(bytes)).toBe(true);
      expect((await text((await s.read(sha256, { start: 100, end: 199 }))!)).equals(bytes.subarray(100, 200))).toBe(true);
      expect((await text((await s.read(sha256, { start: 9_999, end: 9_999 }))!)).equals(bytes.subarray(9_999))).toBe(true);
    });

    it('put of stored bytes renews their write time (the GC grace period starts again)', async () => {
      const s = await f.create();
      const bytes = randomBytes(256);
      const { sha256 } = await s.put(bytes);
      const first = (await s.stat(sha256))!.mtimeMs;
      // S3 LastModified has one-second resolution: let a second pass.
      await new Promise((r) => setTimeout(r, 1100));
      await s.put(bytes);
      expect((await s.stat(sha256))!.mtimeMs).toBeGreaterThan(first);
    });

    it('removeIfUnused removes only when the decision still holds, and leaves nothing aside', async () => {
      const s = await f.create();
      const keep = await s.put(randomBytes(300));
      const drop = await s.put(randomBytes(500));
      const seen: number[] = [];
      expect(await s.removeIfUnused(keep.sha256, (m) => (seen.push(m), false))).toBe(0);
      expect(seen[0]).toBe((await s.stat(keep.sha256))!.mtimeMs);
      expect(await s.removeIfUnused(drop.sha256, () => true)).toBe(500);
      expect(await s.has(keep.sha256)).toBe(true);
      expect(await s.has(drop.sha256)).toBe(false);
      expect(await all(s.leftovers())).toEqual([]);
    });

    it('a pass restoring with keep leaves the copy aside, so the pass that moved it can still restore from it', async () => {
      const s = await f.create();
      const bytes = randomBytes(700);
      const { sha256 } = await s.put(bytes);
      // Inside the moving pass's decision (once its bytes are aside: S3 also decides before its copy), a
      // second pass finds the copy aside of a (now) referenced blob.
      const kept = await s.removeIfUnused(sha256, async () => {
        const aside = (await all(s.leftovers())).filter((l) => l.kind === 'gc');
        if (aside.length === 0) return true;
        await s.restoreLeftover(aside[0]!.name, { keep: true });
        expect(await s.has(sha256)).toBe(true);
        expect(await all(s.leftovers())).toHaveLength(1);
        return false;
      });
      expect(kept).toBe(0);
      expect((await s.get(sha256)).equals(bytes)).toBe(true);
      expect(await all(s.leftovers())).toEqual([]);
    });

    it("the GC collects unreferenced blobs past the grace period and a crashed write's leftovers", async () => {
      const s = await f.create();
      const used = await s.put(randomBytes(100));
      const orphan = await s.put(randomBytes(200));
      await f.crashMidWrite(s, randomBytes(f.largeBytes));
      const left = await all(s.leftovers());
      expect(left).toMatchObject([{ kind: 'tmp' }]);
      const referenced = (sha: string): boolean => sha === used.sha256;
      const fresh = await collectBlobGarbage({ blobs: s, referenced, graceMs: 3_600_000 });
      expect(fresh).toMatchObject({ scanned: 2, removed: 0, kept_recent: 1 });
      expect(await all(s.leftovers())).toHaveLength(1);
      const later = await collectBlobGarbage({ blobs: s, referenced, graceMs: 3_600_000, now: Date.now() + 2 * 3_600_000 });
      expect(later).toMatchObject({ scanned: 2, removed: 2, kept_recent: 0 });
      expect(await s.has(orphan.sha256)).toBe(false);
      expect(await s.has(used.sha256)).toBe(true);
      expect(await all(s.leftovers())).toEqual([]);
    });

    it('large blobs round-trip intact', async () => {
      const s = await f.create();
      const bytes = randomBytes(f.largeBytes);
      const { sha256, sizeBytes } = await s.put(bytes);
      expect(sizeBytes).toBe(f.largeBytes);
      expect(sha256Hex(await s.get(sha256))).toBe(sha256);
      expect(await all(s.leftovers())).toEqual([]);
    });
  });
}
