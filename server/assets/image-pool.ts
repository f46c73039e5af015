import PQueue from 'p-queue';
import sharp from 'sharp';
import { createHeicWorker, type RgbaImage } from './heic-worker.ts';
import { createImportAdmission, type ImportSlot } from './import-admission.ts';
import { DEFAULT_IMAGE_TIMEOUT_S } from './image-timeout.ts';
import { createSvgRenderer } from './svg-render.ts';
import { createThreadPriority } from './thread-priority.ts';

/**
 * Task priorities: `view` (an agent waits on a preview) runs in its own lane and never queues behind
 * bulk work; in the bulk lane imports go before background enrichment.
 */
export const IMAGE_PRIORITY = { view: 2, import: 1, background: 0 } as const;

/** Limits of the image pool, from config. */
export interface ImagePoolOptions {
  /** sharp operations (one decode or one encode, each one libvips thread) running at once per lane, ≥ 1 */
  concurrency: number;
  /**
   * imports in progress at once (waiting for or using the pool), ≥ 1; one tenant holds at most its fair
   * share of them (import-admission.ts `fairShare`); the next one is refused with `busy`
   */
  maxActiveImports: number;
  /**
   * nice value (0–19) of the threads that do the pixel work (libvips workers, the HEIC and video-poster decoders) on Linux,
   * so they yield the CPU to the thread serving requests; 0 or absent = the process's own priority
   */
  nice?: number;
  /** longest an SVG may take to render before its process is killed and the import refused, ms (default 10 s) */
  svgRenderTimeoutMs?: number;
  /** time limit of every sharp pipeline run for the pool's callers, whole s (image-timeout.ts); 0 = none, absent = 30 s */
  timeoutS?: number;
}

export type { ImportSlot } from './import-admission.ts';

/** Counters of the pool, for logs, tests and the bench. */
export interface ImagePoolStats {
  /** sharp operations running (both lanes) */
  running: number;
  /** sharp operations waiting for a free slot (both lanes) */
  waiting: number;
  /** admitted imports not yet released */
  activeImports: number;
}

/**
 * Bounded concurrency for image work (decode, resize, encode) plus admission control for imports.
 * Every sharp operation of the request path runs through `run`: imports and enrichment share the bulk
 * lane (at most `concurrency` libvips threads whatever the number of callers, so memory stays bounded
 * by that many decodes); `view` has a lane of the same size of its own, so a preview never waits for
 * an import's encodes. `admit` caps how many imports may be in progress, on the server and per tenant
 * (a fair share, so one tenant's flood of slow imports never takes every slot); past the cap it refuses
 * at once with a retryable `busy` error instead of queueing without bound.
 */
export interface ImagePool {
  /** Run one sharp operation when a slot of its lane is free (higher `priority` first, FIFO within a priority). */
  run<T>(fn: () => Promise<T>, priority: number): Promise<T>;
  /**
   * Decode HEIC/HEIF (HEVC) to RGBA on the pool's worker thread, as one pool operation.
   * @throws Error with the decoder's message when the bytes cannot be decoded
   */
  decodeHeic(bytes: Buffer, priority: number): Promise<RgbaImage>;
  /**
   * Rasterise an SVG at about `targetWidth` px in a child process (svg-render.ts), outside the pool's
   * lanes, so a slow document holds up only other SVG renders, never photos.
   * @throws SvgRenderError timeout | busy | render
   */
  renderSvg(svg: Buffer, canvasWidth: number, targetWidth: number, maxPixels: number): Promise<RgbaImage>;
  /**
   * Remove what can run script from an SVG (DOMPurify) in the same child processes as `renderSvg`.
   * @returns the sanitised document; empty when no <svg> root is left
   * @throws SvgRenderError timeout | busy | render
   */
  sanitizeSvg(svg: Buffer): Promise<Buffer>;
  /**
   * Admit one import of `tenantId` before any of its work starts (before a download, before staged bytes
   * are touched), so a refusal changes nothing. Past the server's limit, or past the tenant's fair share
   * of it while other tenants import (alone: half), it is refused.
   * @throws ServiceError busy with `details.retry_after_ms` (ms until a slot is likely free), `details.active_imports`,
   *   `details.tenant_active_imports` and `details.tenant_share` (import-admission.ts)
   */
  admit(tenantId: string): ImportSlot;
  stats(): ImagePoolStats;
  /** nice value (0–19) the pool's image threads run at (`ImagePoolOptions.nice`); workers started for image work take it too */
  readonly nice: number;
  /** time limit of one sharp pipeline, whole s (`ImagePoolOptions.timeoutS`); 0 = none */
  readonly timeoutS: number;
  /** Stop the worker thread and the SVG processes; sharp operations already queued still run. */
  close(): Promise<void>;
}

/** The HEIC worker thread exits after this long without work, ms. */
const HEIC_WORKER_IDLE_MS = 30_000;
/** SVG render processes. Renders waiting beyond them are bounded so SVG imports hold at most half the import slots. */
const SVG_PROCESSES = 1;

/**
 * Configure sharp for a server that processes each image once: libvips' operation cache off (it would
 * keep decoded images of unique uploads alive; https://sharp.pixelplumbing.com/api-utility#cache) and
 * one libvips thread per operation (the pool decides how many run; this is also sharp's own default on
 * glibc, https://sharp.pixelplumbing.com/api-utility#concurrency). Process-wide; called by the
 * composition root.
 */
export function configureSharp(): void {
  sharp.cache(false);
  sharp.concurrency(1);
}

/** Create the pool. Queueing is p-queue (https://github.com/sindresorhus/p-queue); admission is import-admission.ts. */
export function createImagePool(opts: ImagePoolOptions): ImagePool {
  if (!(opts.concurrency >= 1) || !(opts.maxActiveImports >= 1)) throw new RangeError('image pool limits must be ≥ 1');
  const bulk = new PQueue({ concurrency: opts.concurrency });
  const interactive = new PQueue({ concurrency: opts.concurrency });
  const lane = (priority: number): PQueue => (priority >= IMAGE_PRIORITY.view ? interactive : bulk);
  const nice = opts.nice ?? 0;
  const heic = createHeicWorker({ idleMs: HEIC_WORKER_IDLE_MS, nice });
  const svg = createSvgRenderer({
    processes: SVG_PROCESSES,
    maxQueued: Math.max(0, Math.floor(opts.maxActiveImports / 2) - SVG_PROCESSES),
    timeoutMs: opts.svgRenderTimeoutMs ?? 10_000,
    nice,
  });
  // libvips starts its worker threads on demand: each operation looks for new ones before and after it runs.
  const threads = createThreadPriority(nice);
  const lowered = async <T>(fn: () => Promise<T>): Promise<T> => {
    threads.sweep();
    try {
      return await fn();
    } finally {
      threads.sweep();
    }
  };
  const admission = createImportAdmission(opts.maxActiveImports);
  return {
    run: (fn, priority) => lane(priority).add(() => lowered(fn), { priority }),
    decodeHeic: (bytes, priority) => lane(priority).add(() => heic.decode(bytes), { priority }),
    renderSvg: (bytes, canvasWidth, targetWidth, maxPixels) => svg.render(bytes, canvasWidth, targetWidth, maxPixels),
    sanitizeSvg: (bytes) => svg.sanitize(bytes),
    admit: (tenantId) => admission.admit(tenantId),
    nice,
    timeoutS: opts.timeoutS ?? DEFAULT_IMAGE_TIMEOUT_S,
    stats: () => ({ running: bulk.pending + interactive.pending, waiting: bulk.size + interactive.size, activeImports: admission.active }),
    close: async () => {
      await Promise.all([heic.close(), svg.close()]);
    },
  };
}
