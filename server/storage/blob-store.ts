import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestHooks } from '../test-hooks.ts';

/** Content-addressed blob storage: a blob's key is the sha256 hex of its bytes. */
export interface BlobStore {
  /**
   * Store bytes (idempotent). Existing bytes get their write time renewed, so the GC's grace period covers
   * the row about to reference them. @returns sha256 hex key and size in bytes
   * @throws Error when the file cannot be written or renewed (never swallowed)
   */
  put(bytes: Buffer): Promise<{ sha256: string; sizeBytes: number }>;
  /** Read a blob. @throws Error ENOENT when absent */
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): boolean;
  /** Absolute file path of a blob (for streaming with sendFile), or null when absent. */
  filePath(sha256: string): string | null;
  /** Every stored blob with its last write time (ms since epoch; `put` of existing bytes renews it). */
  list(): AsyncIterable<{ sha256: string; mtimeMs: number; sizeBytes: number }>;
  /**
   * Files that are not blobs: temp files of writes that died before their rename (`<sha>.<uuid>.tmp`)
   * and quarantined blobs of a GC that died mid-removal (`<sha>.<uuid>.gc`), with their write time.
   */
  leftovers(): AsyncIterable<{ name: string; sha256: string; kind: 'tmp' | 'gc'; mtimeMs: number; sizeBytes: number }>;
  /** Delete a leftover by the name `leftovers` gave. @returns whether a file was removed */
  removeLeftover(name: string): Promise<boolean>;
  /** Put a quarantined blob (`<sha>.<uuid>.gc`) back under its key unless the key exists again. */
  restoreLeftover(name: string): Promise<void>;
  /**
   * Remove a blob only if it is still unused, safe against a concurrent `put` of the same bytes: the file
   * is first moved aside (atomic rename), then `stillUnused(mtimeMs)` is asked with the write time of the
   * moved file; when the bytes were renewed (or a row references them now) the file goes back. A `put`
   * racing the move finds no file and writes the bytes anew.
   * @returns bytes removed (0 when absent or kept)
   */
  removeIfUnused(sha256: string, stillUnused: (mtimeMs: number) => boolean): Promise<number>;
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
export function createLocalBlobStore(root: string, hooks?: TestHooks): BlobStore {
  fs.mkdirSync(root, { recursive: true });
  const pathOf = (sha: string): string => {
    if (!/^[0-9a-f]{64}$/.test(sha)) throw new Error(`not a sha256 key: ${sha}`);
    return path.join(root, sha.slice(0, 2), sha.slice(2, 4), sha);
  };
  const store: BlobStore = {
    async put(bytes) {
      const sha256 = sha256Hex(bytes);
      const dest = pathOf(sha256);
      if (fs.existsSync(dest)) {
        // Renew the write time so the GC's grace period covers the row about to reference it. ENOENT means
        // the GC moved the file aside meanwhile: write it anew below. Any other error is the caller's.
        const t = new Date();
        try {
          await fs.promises.utimes(dest, t, t);
          return { sha256, sizeBytes: bytes.length };
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
      }
      await fs.promises.mkdir(path.dirname(dest), { recursive: true });
      const tmp = `${dest}.${randomUUID()}.tmp`;
      await fs.promises.writeFile(tmp, bytes);
      await hooks?.pause('blob-put-rename');
      await fs.promises.rename(tmp, dest);
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
    async *leftovers() {
      for (const a of await readdirOrEmpty(root)) {
        if (!/^[0-9a-f]{2}$/.test(a)) continue;
        for (const b of await readdirOrEmpty(path.join(root, a))) {
          if (!/^[0-9a-f]{2}$/.test(b)) continue;
          for (const f of await readdirOrEmpty(path.join(root, a, b))) {
            const m = LEFTOVER.exec(f);
            if (!m) continue;
            const st = await fs.promises.stat(path.join(root, a, b, f)).catch(() => null);
            if (st?.isFile()) yield { name: f, sha256: m[1]!, kind: m[2] as 'tmp' | 'gc', mtimeMs: st.mtimeMs, sizeBytes: st.size };
          }
        }
      }
    },
    async removeLeftover(name) {
      const m = LEFTOVER.exec(name);
      if (!m) throw new Error(`not a leftover file name: ${name}`);
      return unlinkIfPresent(path.join(path.dirname(pathOf(m[1]!)), name));
    },
    async restoreLeftover(name) {
      const m = LEFTOVER.exec(name);
      if (!m || m[2] !== 'gc') throw new Error(`not a quarantined blob: ${name}`);
      const dest = pathOf(m[1]!);
      const file = path.join(path.dirname(dest), name);
      // Content-addressed: if the key exists again it holds the same bytes, and the copy aside can go.
      if (fs.existsSync(dest)) await unlinkIfPresent(file);
      else await fs.promises.rename(file, dest).catch((e: NodeJS.ErrnoException) => { if (e.code !== 'ENOENT') throw e; });
    },
    async removeIfUnused(sha, stillUnused) {
      const dest = pathOf(sha);
      const aside = `${dest}.${randomUUID()}.gc`;
      try {
        await fs.promises.rename(dest, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        throw e;
      }
      // From here on a concurrent put finds no file at `dest` and writes the bytes anew; one that renewed
      // the file before the move left its mark in the write time of `aside`.
      const st = await fs.promises.stat(aside);
      if (!stillUnused(st.mtimeMs)) {
        await store.restoreLeftover(path.basename(aside));
        return 0;
      }
      await unlinkIfPresent(aside);
      return st.size;
    },
    remove: (sha) => unlinkIfPresent(pathOf(sha)),
  };
  return store;
}

/** `<sha256>.<uuid>.tmp` (a write that died before its rename) or `<sha256>.<uuid>.gc` (a GC that died mid-removal). */
const LEFTOVER = /^([0-9a-f]{64})\.[0-9a-f-]{36}\.(tmp|gc)$/;

async function unlinkIfPresent(file: string): Promise<boolean> {
  try {
    await fs.promises.unlink(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return (await fs.promises.readdir(dir)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
