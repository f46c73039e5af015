import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Staging area of the upload channel: `<root>/<upload id>/<index>.part` while chunks arrive, then one
 * verified `<root>/<upload id>/file` while the upload waits as an attachment. Nothing here is an
 * asset; the sweeper deletes directories of expired or unknown sessions.
 */
export interface StagingStore {
  /** Write chunk `index` (atomic: temp file + rename, so a crash never leaves a torn part). */
  writePart(uploadId: string, index: number, bytes: Buffer): Promise<void>;
  /**
   * Concatenate parts 0…count-1 into the upload's whole file, streaming (memory O(one part)), hashing on
   * the way; the parts are removed. When the whole file is already there (an earlier assembly finished —
   * the file only appears by an atomic rename — and the process died before recording it), it is hashed
   * again instead. The caller verifies the returned size and sha256 hex.
   * @throws Error ENOENT when a part is missing and no assembled file exists
   */
  assemble(uploadId: string, count: number): Promise<{ sha256: string; sizeBytes: number }>;
  /** The verified whole file, or null when absent. */
  readFile(uploadId: string): Promise<Buffer | null>;
  /** Delete one chunk file (no error when absent). */
  removePart(uploadId: string, index: number): Promise<void>;
  /** Delete everything of one upload (no error when absent). */
  remove(uploadId: string): Promise<void>;
  /** Upload ids that have a directory. */
  list(): Promise<string[]>;
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Local filesystem staging store under `root` (created if needed). */
export function createStagingStore(root: string): StagingStore {
  fs.mkdirSync(root, { recursive: true });
  const dirOf = (id: string): string => {
    if (!ID.test(id)) throw new Error(`not an upload id: ${id}`);
    return path.join(root, id);
  };
  const atomicWrite = async (dest: string, bytes: Buffer): Promise<void> => {
    await fs.promises.mkdir(path.dirname(dest), { recursive: true });
    const tmp = `${dest}.${randomUUID()}.tmp`;
    await fs.promises.writeFile(tmp, bytes);
    await fs.promises.rename(tmp, dest);
  };
  const partPath = (id: string, i: number): string => path.join(dirOf(id), `${String(i).padStart(6, '0')}.part`);
  return {
    writePart: (id, index, bytes) => atomicWrite(partPath(id, index), bytes),
    async assemble(id, count) {
      const dest = path.join(dirOf(id), 'file');
      if (fs.existsSync(dest)) {
        const hash = createHash('sha256');
        let sizeBytes = 0;
        for await (const chunk of fs.createReadStream(dest)) {
          hash.update(chunk as Buffer);
          sizeBytes += (chunk as Buffer).length;
        }
        for (const f of await fs.promises.readdir(dirOf(id)))
          if (f.endsWith('.part')) await fs.promises.rm(path.join(dirOf(id), f), { force: true });
        return { sha256: hash.digest('hex'), sizeBytes };
      }
      const tmp = `${dest}.${randomUUID()}.tmp`;
      const hash = createHash('sha256');
      let sizeBytes = 0;
      const out = await fs.promises.open(tmp, 'w');
      try {
        for (let i = 0; i < count; i++) {
          const part = await fs.promises.readFile(partPath(id, i));
          hash.update(part);
          sizeBytes += part.length;
          await out.write(part);
        }
      } catch (e) {
        await out.close();
        await fs.promises.rm(tmp, { force: true });
        throw e;
      }
      await out.close();
      await fs.promises.rename(tmp, dest);
      for (const f of await fs.promises.readdir(dirOf(id)))
        if (f.endsWith('.part')) await fs.promises.rm(path.join(dirOf(id), f), { force: true });
      return { sha256: hash.digest('hex'), sizeBytes };
    },
    async readFile(id) {
      try {
        return await fs.promises.readFile(path.join(dirOf(id), 'file'));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    removePart: (id, index) => fs.promises.rm(partPath(id, index), { force: true }),
    remove: (id) => fs.promises.rm(dirOf(id), { recursive: true, force: true }),
    async list() {
      const entries = await fs.promises.readdir(root, { withFileTypes: true });
      return entries.filter((e) => e.isDirectory() && ID.test(e.name)).map((e) => e.name);
    },
  };
}
