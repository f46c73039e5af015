import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { TestHooks } from '../test-hooks.ts';

/**
 * Content-addressed blob storage: a blob's key is the sha256 hex of its bytes. Two implementations behind
 * one contract (`blob-store-contract.ts` runs against both): a local directory (`createLocalBlobStore`) and
 * any S3 API (`createS3BlobStore` in blob-store-s3.ts); callers never know which one they hold.
 *
 * GC safety (see blob-gc.ts): an unreferenced blob is removed only when its last write is older than the
 * grace period, by `removeIfUnused`, which decides again after the bytes are out of their key. A writer
 * whose `put` answered `renewed: true` checks `has` once its row has committed and puts the bytes again
 * when they are gone, which closes the window between a GC's decision and its removal on any backend.
 */
export interface BlobStore {
  /** Where the blobs live, for logs and errors: an absolute directory or `s3://bucket/prefix`. */
  readonly location: string;
  /**
   * Probe that the store answers with the configured access (local: the directory is writable; S3: one
   * list request on the prefix, which checks endpoint, credentials, bucket and the list permission).
   * @throws Error (S3: BlobStoreError naming the operation, status and S3 code) when it does not
   */
  check(): Promise<void>;
  /**
   * Store bytes (idempotent). Existing bytes get their write time renewed, so the GC's grace period covers
   * the row about to reference them. @returns sha256 hex key, size in bytes, and `renewed` (true when the
   * bytes were already stored and only their write time was renewed)
   * @throws Error when the bytes cannot be written or renewed (never swallowed)
   */
  put(bytes: Buffer): Promise<{ sha256: string; sizeBytes: number; renewed: boolean }>;
  /** Read a whole blob. @throws Error with `code: 'ENOENT'` when absent */
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): Promise<boolean>;
  /** Size (bytes) and last write time (ms since epoch) of a blob, or null when absent. */
  stat(sha256: string): Promise<{ sizeBytes: number; mtimeMs: number } | null>;
  /**
   * Stream a blob, or the inclusive byte range `start…end` of it (RFC 9110 §14.1.2 semantics), or null
   * when absent. The caller consumes or destroys the stream.
   */
  read(sha256: string, range?: { start: number; end: number }): Promise<Readable | null>;
  /**
   * A time-limited URL from which a client may GET the blob directly (an S3 presigned URL), or null when
   * the bytes are to be streamed through the server (the local store; S3 with delivery `stream`).
   * @param o.contentType MIME type the response must carry; o.cacheControl its Cache-Control
   */
  directUrl(sha256: string, o: { contentType: string; cacheControl: string }): Promise<string | null>;
  /** Every stored blob with its last write time (ms since epoch; `put` of existing bytes renews it). */
  list(): AsyncIterable<{ sha256: string; mtimeMs: number; sizeBytes: number }>;
  /**
   * Things that are not blobs, named opaquely: `tmp` = a write that died before its bytes reached their
   * key (a local temp file, an incomplete S3 multipart upload), `gc` = a blob a GC moved aside and had not
   * yet decided about when it died (`removeIfUnused`), with their write time.
   */
  leftovers(): AsyncIterable<{ name: string; sha256: string; kind: 'tmp' | 'gc'; mtimeMs: number; sizeBytes: number }>;
  /** Delete a leftover by the name `leftovers` gave. @returns whether something was removed */
  removeLeftover(name: string): Promise<boolean>;
  /**
   * Put a blob moved aside (`gc` leftover) back under its key unless the key exists again, then drop the
   * copy aside — or, with `keep`, leave it: a GC pass of another process may be between moving the blob
   * aside and deciding, and restores from it when its decision goes the other way (a later pass drops it).
   */
  restoreLeftover(name: string, o?: { keep?: boolean }): Promise<void>;
  /**
   * Remove a blob only if it is still unused, safe against a concurrent `put` of the same bytes: the bytes
   * are first moved aside (local: one atomic rename; S3: a copy to a quarantine key, then the delete), then
   * `stillUnused(mtimeMs)` is asked with the write time the blob had; when it was renewed (or a row
   * references it now) the bytes go back. A `put` racing the move writes the bytes anew.
   * @returns bytes removed (0 when absent or kept)
   */
  removeIfUnused(sha256: string, stillUnused: (mtimeMs: number) => boolean | Promise<boolean>): Promise<number>;
  /** Remove a blob; absent is fine. @returns whether a blob was removed */
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
    location: path.resolve(root),
    check: () => fs.promises.access(root, fs.constants.W_OK),
    async put(bytes) {
      const sha256 = sha256Hex(bytes);
      const dest = pathOf(sha256);
      if (fs.existsSync(dest)) {
        // Renew the write time so the GC's grace period covers the row about to reference it. ENOENT means
        // the GC moved the file aside meanwhile: write it anew below. Any other error is the caller's.
        const t = new Date();
        try {
          await fs.promises.utimes(dest, t, t);
          return { sha256, sizeBytes: bytes.length, renewed: true };
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
      }
      await fs.promises.mkdir(path.dirname(dest), { recursive: true });
      const tmp = `${dest}.${randomUUID()}.tmp`;
      await fs.promises.writeFile(tmp, bytes);
      await hooks?.pause('blob-put-rename');
      await fs.promises.rename(tmp, dest);
      return { sha256, sizeBytes: bytes.length, renewed: false };
    },
    get: (sha) => fs.promises.readFile(pathOf(sha)),
    has: async (sha) => (await store.stat(sha)) !== null,
    async stat(sha) {
      const st = await fs.promises.stat(pathOf(sha)).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return null;
        throw e;
      });
      return st?.isFile() ? { sizeBytes: st.size, mtimeMs: st.mtimeMs } : null;
    },
    async read(sha, range) {
      // Open first so that absence is an answer (null), not an error event on a stream already handed out.
      let fh: fs.promises.FileHandle;
      try {
        fh = await fs.promises.open(pathOf(sha), 'r');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
      return fh.createReadStream(range ? { start: range.start, end: range.end } : {});
    },
    directUrl: async () => null,
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
    async restoreLeftover(name, o) {
      const m = LEFTOVER.exec(name);
      if (!m || m[2] !== 'gc') throw new Error(`not a quarantined blob: ${name}`);
      const dest = pathOf(m[1]!);
      const file = path.join(path.dirname(dest), name);
      // Content-addressed: if the key exists again it holds the same bytes, and the copy aside can go.
      if (fs.existsSync(dest)) {
        if (!o?.keep) await unlinkIfPresent(file);
      } else if (o?.keep) {
        const tmp = `${dest}.${randomUUID()}.tmp`;
        try {
          await fs.promises.copyFile(file, tmp);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
          throw e;
        }
        await fs.promises.rename(tmp, dest);
      } else
        await fs.promises.rename(file, dest).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'ENOENT') throw e;
        });
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
      if (!(await stillUnused(st.mtimeMs))) {
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
