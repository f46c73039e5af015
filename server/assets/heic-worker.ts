import { Worker } from 'node:worker_threads';

/** Decoded pixels: 8-bit RGBA, row-major, `width × height × 4` bytes. */
export interface RgbaImage {
  data: Buffer;
  width: number;
  height: number;
}

/** HEIC/HEIF decoding on a worker thread (heic-decode, libheif in WebAssembly). */
export interface HeicWorker {
  /** @throws Error with heic-decode's message when the bytes cannot be decoded */
  decode(bytes: Buffer): Promise<RgbaImage>;
  /** Stop the thread (pending decodes are rejected). */
  close(): Promise<void>;
}

type Reply = { id: number; width: number; height: number; data: Uint8Array } | { id: number; error: string };

/**
 * One lazily started worker thread running `heic-decode.worker.mjs`. The prebuilt libvips in sharp has
 * no HEVC decoder, and heic-decode is synchronous WebAssembly: on the main thread it would stall every
 * other request for the whole decode (~0.4 s for 12 MP on this class of machine). Decodes are answered
 * in order; callers bound how many are queued (the image pool). The thread exits after `idleMs`
 * without work (its WebAssembly heap is released) and is restarted on demand; a crash rejects the
 * pending decodes and the next call starts a new thread. `nice` (0–19) is the thread's CPU priority on
 * Linux (image-pool.ts `ImagePoolOptions.nice`).
 */
export function createHeicWorker(opts: { idleMs: number; nice?: number }): HeicWorker {
  let worker: Worker | null = null;
  let nextId = 1;
  let idle: NodeJS.Timeout | null = null;
  const pending = new Map<number, { resolve(v: RgbaImage): void; reject(e: Error): void }>();

  const stop = async (): Promise<void> => {
    const w = worker;
    worker = null;
    if (idle) clearTimeout(idle);
    idle = null;
    if (w) await w.terminate();
  };
  const failAll = (e: Error): void => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  const start = (): Worker => {
    const w = new Worker(new URL('./heic-decode.worker.mjs', import.meta.url), { workerData: { nice: opts.nice ?? 0 } });
    w.unref();
    w.on('message', (m: Reply) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve({ data: Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength), width: m.width, height: m.height });
      if (pending.size === 0) idle = setTimeout(() => void stop(), opts.idleMs).unref();
    });
    w.on('error', (e: Error) => {
      if (worker === w) worker = null;
      failAll(e);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      if (pending.size) failAll(new Error(`HEIC decoder thread exited (code ${code})`));
    });
    return w;
  };

  return {
    decode(bytes) {
      if (idle) clearTimeout(idle);
      idle = null;
      worker ??= start();
      const id = nextId++;
      return new Promise<RgbaImage>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker!.postMessage({ id, bytes }); // structured clone: the caller keeps its buffer
      });
    },
    async close() {
      failAll(new Error('HEIC decoder closed'));
      await stop();
    },
  };
}
