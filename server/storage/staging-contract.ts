import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StagingStore } from './staging.ts';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * The behaviour every `StagingStore` must have, as vitest cases (the model: Keyv's `@keyv/test-suite`):
 * parts written in any order and rewritten assemble into the whole file with its SHA-256 and size; the
 * parts are gone afterwards; a second assembly (the process died before recording the first) hashes the
 * file again; a missing part fails with ENOENT and writes nothing; removal and listing by upload id.
 * @param create a fresh, empty store
 * @param partBytes a chunk size; three of them make a file
 */
export function stagingStoreContract(name: string, create: () => Promise<StagingStore>, partBytes = 64 * 1024): void {
  describe(`StagingStore contract: ${name}`, () => {
    it('assembles parts written out of order (one rewritten) into the whole file, then drops the parts', async () => {
      const s = await create();
      const id = randomUUID();
      const parts = [randomBytes(partBytes), randomBytes(partBytes), randomBytes(partBytes / 2)];
      await s.writePart(id, 2, parts[2]!);
      await s.writePart(id, 0, randomBytes(partBytes)); // replaced below, as a retried chunk is
      await s.writePart(id, 1, parts[1]!);
      await s.writePart(id, 0, parts[0]!);
      expect(await s.list()).toEqual([id]);
      const whole = Buffer.concat(parts);
      expect(await s.assemble(id, 3)).toEqual({ sha256: sha(whole), sizeBytes: whole.length });
      expect((await s.readFile(id))?.equals(whole)).toBe(true);
      // assembling again (a crash after the file appeared, before the session was recorded) hashes the file
      expect(await s.assemble(id, 3)).toEqual({ sha256: sha(whole), sizeBytes: whole.length });
      await s.remove(id);
      expect(await s.readFile(id)).toBeNull();
      expect(await s.list()).toEqual([]);
    });

    it('a missing part fails with ENOENT and leaves no file; removePart and remove are idempotent', async () => {
      const s = await create();
      const id = randomUUID();
      await s.writePart(id, 0, randomBytes(1000));
      await s.writePart(id, 2, randomBytes(1000));
      await expect(s.assemble(id, 3)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await s.readFile(id)).toBeNull();
      await s.removePart(id, 2);
      await s.removePart(id, 2);
      await s.writePart(id, 1, randomBytes(10));
      await s.writePart(id, 2, randomBytes(10));
      expect((await s.assemble(id, 3)).sizeBytes).toBe(1020);
      await s.remove(id);
      await s.remove(id);
      expect(await s.readFile(randomUUID())).toBeNull();
    });

    it('assembles a file larger than one S3 multipart part (7.5 MiB from three 2.5 MiB chunks)', async () => {
      const s = await create();
      const id = randomUUID();
      const parts = [0, 1, 2].map(() => randomBytes(2.5 * 1024 * 1024));
      for (const [i, p] of parts.entries()) await s.writePart(id, i, p);
      const whole = Buffer.concat(parts);
      expect(await s.assemble(id, 3)).toEqual({ sha256: sha(whole), sizeBytes: whole.length });
      expect(sha((await s.readFile(id))!)).toBe(sha(whole));
      await s.remove(id);
    });

    it('keeps uploads apart and lists each once; refuses ids that are not upload ids', async () => {
      const s = await create();
      const a = randomUUID();
      const b = randomUUID();
      await s.writePart(a, 0, Buffer.from('a'));
      await s.writePart(a, 1, Buffer.from('aa'));
      await s.writePart(b, 0, Buffer.from('b'));
      expect((await s.list()).sort()).toEqual([a, b].sort());
      expect((await s.assemble(b, 1)).sizeBytes).toBe(1);
      expect((await s.assemble(a, 2)).sizeBytes).toBe(3);
      await expect(Promise.resolve().then(() => s.writePart('../escape', 0, Buffer.from('x')))).rejects.toThrow(/not an upload id/);
      await s.remove(a);
      expect(await s.list()).toEqual([b]);
    });
  });
}
