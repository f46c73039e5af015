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
      if (!fs.existsSync(dest)) {
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
  };
}
