import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Content-addressed blob storage: a blob's key is the sha256 hex of its bytes. */
export interface BlobStore {
  /** Store bytes (idempotent). @returns sha256 hex key and size in bytes */
  put(bytes: Buffer): Promise<{ sha256: string; sizeBytes: number }>;
  /** Read a blob. @throws Error ENOENT when absent */
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): boolean;
  /** Absolute file path of a blob (for streaming with sendFile), or null when absent. */
  filePath(sha256: string): string | null;
  /** Every stored blob with its last write time (ms since epoch; `put` of existing bytes renews it). */
  list(): AsyncIterable<{ sha256: string; mtimeMs: number; sizeBytes: number }>;
  /** Remove a blob; absent is fine. @returns whether a file was removed */
  remove(sha256: string): Promise<boolean>;
}

/** sha256 hex of bytes. */
export function sha256Hex(bytes: Buffer | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Local filesystem blob store under `root`, sharded `ab/cd/<sha256>`. Writes go to a temp file and are
 * renamed into place, so a crash never leaves a partial blob under its final key.
 */
export function createLocalBlobStore(root: string): BlobStore {
  fs.mkdirSync(root, { recursive: true });
  const pathOf = (sha: string): string => {
    if (!/^[0-9a-f]{64}$/.test(sha)) throw new Error(`not a sha256 key: ${sha}`);
    return path.join(root, sha.slice(0, 2), sha.slice(2, 4), sha);
  };
  return {
    async put(bytes) {
      const sha256 = sha256Hex(bytes);
      const dest = pathOf(sha256);
      if (fs.existsSync(dest)) {
        // Renew the write time so the GC's grace period covers the row about to reference it.
        const t = new Date();
        await fs.promises.utimes(dest, t, t).catch(() => undefined);
      } else {
        await fs.promises.mkdir(path.dirname(dest), { recursive: true });
        const tmp = `${dest}.${randomUUID()}.tmp`;
        await fs.promises.writeFile(tmp, bytes);
        await fs.promises.rename(tmp, dest);
      }
      return { sha256, sizeBytes: bytes.length };
    },
    get: (sha) => fs.promises.readFile(pathOf(sha)),
    has: (sha) => fs.existsSync(pathOf(sha)),
    filePath: (sha) => {
      const p = pathOf(sha);
      return fs.existsSync(p) ? p : null;
    },
    async *list() {
      for (const a of await readdirOrEmpty(root)) {
        if (!/^[0-9a-f]{2}$/.test(a)) continue;
        for (const b of await readdirOrEmpty(path.join(root, a))) {
          if (!/^[0-9a-f]{2}$/.test(b)) continue;
          for (const f of await readdirOrEmpty(path.join(root, a, b))) {
            if (!/^[0-9a-f]{64}$/.test(f)) continue;
            const st = await fs.promises.stat(path.join(root, a, b, f)).catch(() => null);
            if (st?.isFile()) yield { sha256: f, mtimeMs: st.mtimeMs, sizeBytes: st.size };
          }
        }
      }
    },
    async remove(sha) {
      try {
        await fs.promises.unlink(pathOf(sha));
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw err;
      }
    },
  };
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return (await fs.promises.readdir(dir)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
