import { fileURLToPath } from 'node:url';
import workerpool from 'workerpool';
import { busyError, ServiceError } from '../errors.ts';
import type { RgbaImage } from './heic-worker.ts';

/** Why an SVG render failed: too slow (the process was killed), or the renderer's own error. */
export class SvgRenderError extends Error {
  constructor(
    readonly reason: 'timeout' | 'busy' | 'render',
    message: string,
  ) {
    super(message);
    this.name = 'SvgRenderError';
  }
}

/** SVG rasterisation outside the request process, killable at its time limit. */
export interface SvgRenderer {
  /**
   * Rasterise an SVG so its width is about `targetWidth` px (librsvg renders at the density that gives it,
   * so a large canvas is never painted at full size), as 8-bit RGBA.
   * @param canvasWidth the document's width at 72 dpi, px (sharp's metadata)
   * @throws SvgRenderError timeout (killed after `timeoutMs`) | busy (`maxQueued` renders already waiting) | render
   */
  render(svg: Buffer, canvasWidth: number, targetWidth: number, maxPixels: number): Promise<RgbaImage>;
  /**
   * The document without what can run script (svg-render.worker.mjs `sanitize`, DOMPurify's SVG profile).
   * @returns the sanitised UTF-8 document; empty when no <svg> root is left
   * @throws SvgRenderError timeout | busy | render, as `render`
   */
  sanitize(svg: Buffer): Promise<Buffer>;
  close(): Promise<void>;
}

/**
 * A pool of child processes (workerpool, https://github.com/josdejong/workerpool, `workerType: 'process'`)
 * running `svg-render.worker.mjs`. librsvg cannot be interrupted once it renders, and filter primitives
 * such as `feTurbulence` cost per pixel without bound: a 278-byte document can hold a libvips thread for
 * minutes. In a child process a render that outlives `timeoutMs` is ended by killing the process (a new
 * one starts for the next render), and SVG work never takes a slot of the image pool, so photos of other
 * callers are not held up behind it. Results come back over the IPC channel with the structured-clone
 * ("advanced") serialization, so pixels are copied as bytes, not as JSON.
 * @param opts.processes child processes rendering at once (≥ 1); `maxQueued` renders may wait beyond them
 * @param opts.nice CPU priority (0–19) of the children on Linux, as the image pool's threads
 */
export function createSvgRenderer(opts: { processes: number; maxQueued: number; timeoutMs: number; nice?: number }): SvgRenderer {
  let pool: ReturnType<typeof workerpool.pool> | null = null;
  const poolOf = () =>
    (pool ??= workerpool.pool(fileURLToPath(new URL('./svg-render.worker.mjs', import.meta.url)), {
      workerType: 'process',
      maxWorkers: opts.processes,
      maxQueueSize: opts.maxQueued,
      workerTerminateTimeout: 200,
      forkOpts: { serialization: 'advanced', env: { ...process.env, ATELIER_SVG_RENDER_NICE: String(opts.nice ?? 0) } },
    }));
  // A child's first sanitise loads jsdom (~1 s) inside the task's time: sanitising gets at least 10 s, so
  // a short render limit does not refuse ordinary documents on a fresh child (parsing has no per-pixel cost).
  const limitMs = { render: opts.timeoutMs, sanitize: Math.max(opts.timeoutMs, 10_000) };
  const exec = async (method: 'render' | 'sanitize', args: unknown[], doing: string): Promise<unknown> => {
    const p = poolOf();
    let task;
    try {
      task = p.exec(method, args);
    } catch (e) {
      throw new SvgRenderError('busy', (e as Error).message);
    }
    try {
      return await task.timeout(limitMs[method]);
    } catch (e) {
      if (e instanceof workerpool.Promise.TimeoutError)
        throw new SvgRenderError('timeout', `${doing} took longer than ${limitMs[method]} ms`);
      if ((e as Error).message?.includes('Max queue size')) throw new SvgRenderError('busy', (e as Error).message);
      throw new SvgRenderError('render', (e as Error).message);
    }
  };
  return {
    async render(svg, canvasWidth, targetWidth, maxPixels) {
      const r = (await exec('render', [new Uint8Array(svg), canvasWidth, targetWidth, maxPixels], 'rendering')) as {
        data: Uint8Array;
        width: number;
        height: number;
      };
      return { data: Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength), width: r.width, height: r.height };
    },
    async sanitize(svg) {
      const r = (await exec('sanitize', [new Uint8Array(svg)], 'sanitising')) as Uint8Array;
      return Buffer.from(r.buffer, r.byteOffset, r.byteLength);
    },
    async close() {
      const p = pool;
      pool = null;
      if (p) await p.terminate(true);
    },
  };
}

/**
 * The pixels every rendition of an SVG derives from: rendered once, at `targetWidth` px (the widest
 * rendition's width, never the full canvas), in a child process that is killed at its time limit.
 * @param w canvas width, px; `h` canvas height, px (0 when the document has no size)
 * @param field JSON path named in errors
 * @throws ServiceError invalid_argument (no size, too slow, not renderable) | busy (other SVG renders waiting)
 */
export async function rasteriseSvg(
  bytes: Buffer,
  w: number,
  h: number,
  targetWidth: number,
  field: string,
  maxPixels: number,
  work: { renderSvg(svg: Buffer, canvasWidth: number, targetWidth: number, maxPixels: number): Promise<RgbaImage> },
): Promise<RgbaImage> {
  if (!w || !h)
    throw new ServiceError('invalid_argument', field, 'is an SVG without a size: give the root element width and height or a viewBox');
  try {
    return await work.renderSvg(bytes, w, targetWidth, maxPixels);
  } catch (e) {
    const reason = e instanceof SvgRenderError ? e.reason : 'render';
    if (reason === 'busy')
      throw busyError('other SVG documents are being rendered; nothing was imported. Retry the same call shortly', 2000);
    if (reason === 'timeout')
      throw new ServiceError(
        'invalid_argument',
        field,
        `SVG ${(e as Error).message} and was stopped (filters such as feTurbulence cost work per pixel); simplify the document or import it as PNG; nothing was imported`,
        { cause: e },
      );
    throw new ServiceError('invalid_argument', field, 'could not be decoded as svg: the file is corrupt or truncated', { cause: e });
  }
}

/**
 * Defence in depth (issue 36 finding 9): the SVG without scripts, event handlers, unsafe URLs or
 * <foreignObject>, as it will be stored, hashed and served (the sandbox CSP of blob responses is the first
 * line). Runs in the SVG child processes, under the render time limit (at least 10 s).
 * @param field JSON path named in errors
 * @throws ServiceError invalid_argument (nothing SVG left, too slow, unreadable) | busy (other SVG work waiting)
 */
export async function sanitiseSvg(bytes: Buffer, field: string, work: { sanitizeSvg(svg: Buffer): Promise<Buffer> }): Promise<Buffer> {
  let clean: Buffer;
  try {
    clean = await work.sanitizeSvg(bytes);
  } catch (e) {
    const reason = e instanceof SvgRenderError ? e.reason : 'render';
    if (reason === 'busy')
      throw busyError('other SVG documents are being processed; nothing was imported. Retry the same call shortly', 2000);
    throw new ServiceError('invalid_argument', field, `SVG could not be sanitised (${(e as Error).message}); nothing was imported`, {
      cause: e,
    });
  }
  if (clean.length === 0)
    throw new ServiceError(
      'invalid_argument',
      field,
      'is an SVG with no <svg> root element once scripts are removed; nothing was imported',
    );
  return clean;
}
