import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { timedSharp } from './image-timeout.ts';

/** What the container says about a video's picture. */
export interface VideoInfo {
  /** display size after the container's rotation, px */
  widthPx: number;
  heightPx: number;
  /** seconds; null when the container does not say */
  durationS: number | null;
  /** codec of the primary video track (e.g. avc, hevc, vp9, av1), null when unknown */
  codec: string | null;
}

/**
 * Read the size of a video's primary track from its container with mediabunny (a maintained TypeScript
 * demuxer for MP4, MOV, WebM/Matroska and more; no decoding): display width/height (rotation metadata
 * applied), duration, codec. https://mediabunny.dev/guide/reading-media-files
 * @returns null when the bytes are no container mediabunny reads or hold no video track
 */
export async function probeVideo(bytes: Buffer): Promise<VideoInfo | null> {
  // imported with the first video: a library of images never needs the demuxer
  const { ALL_FORMATS, BufferSource, Input } = await import('mediabunny');
  const input = new Input({ source: new BufferSource(bytes), formats: ALL_FORMATS });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (!track) return null;
    const durationS = await input.computeDuration().catch(() => null);
    return {
      widthPx: track.displayWidth,
      heightPx: track.displayHeight,
      durationS: durationS && Number.isFinite(durationS) ? durationS : null,
      codec: (await track.getCodec()) ?? null,
    };
  } catch {
    return null;
  } finally {
    input.dispose();
  }
}

/** How long a poster may take (wasm load + one decode), ms. */
const POSTER_TIMEOUT_MS = 60_000;

/** The ffmpeg.wasm module, compiled once per process on first use (31 MB of wasm; ~0.5 s) and shared with each worker. */
let ffmpegModule: Promise<WebAssembly.Module | null> | null = null;
function compiledFfmpeg(): Promise<WebAssembly.Module | null> {
  ffmpegModule ??= (async () => {
    try {
      return await WebAssembly.compile(await fs.promises.readFile(fileURLToPath(import.meta.resolve('@ffmpeg/core/wasm'))));
    } catch {
      return null; // @ffmpeg/core (optional dependency) is not installed
    }
  })();
  return ffmpegModule;
}

/**
 * A poster frame of a video as PNG bytes, decoded by ffmpeg.wasm (@ffmpeg/core, optional dependency)
 * in a worker thread (the decode is synchronous CPU work and must not block requests), at 10 % of the
 * duration (≤ 1 s; first frames are often black) or the first frame.
 * @param nice the decoding thread's nice value on Linux, 0–19 (image-pool.ts `ImagePoolOptions.nice`)
 * @returns null when no frame could be decoded (codec not in the build, corrupt stream, @ffmpeg/core not
 *   installed, timeout)
 */
export async function videoPoster(bytes: Buffer, durationS: number | null, nice = 0): Promise<Buffer | null> {
  const atS = durationS ? Math.min(1, durationS * 0.1) : 0;
  const module = await compiledFfmpeg();
  if (!module) return null;
  const worker = new Worker(new URL('./video-poster.worker.mjs', import.meta.url), {
    workerData: { bytes: new Uint8Array(bytes), atS, module, nice },
  });
  try {
    return await new Promise<Buffer | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), POSTER_TIMEOUT_MS);
      worker.once('message', (m: { png: Uint8Array | null }) => {
        clearTimeout(timer);
        resolve(m.png ? Buffer.from(m.png.buffer, m.png.byteOffset, m.png.byteLength) : null);
      });
      worker.once('error', () => {
        clearTimeout(timer);
        resolve(null);
      });
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve(null);
      });
    });
  } finally {
    await worker.terminate();
  }
}

/**
 * The thumbnail of a video: its poster frame as a JPEG with the longest edge `edgePx` (the same role and
 * size as an image's thumbnail, so `thumbnail_url` is a real preview).
 * @param nice the poster decoder's nice value (see `videoPoster`)
 * @param timeoutS time limit of the resize and encode, whole s (image-timeout.ts `timedSharp`); absent = none
 * @returns null when no poster can be made (see `videoPoster`)
 */
export async function videoThumbnail(
  bytes: Buffer,
  durationS: number | null,
  edgePx: number,
  maxInputPixels: number,
  nice = 0,
  timeoutS?: number,
): Promise<{ bytes: Buffer; width: number; height: number } | null> {
  const png = await videoPoster(bytes, durationS, nice);
  if (!png) return null;
  const r = await timedSharp(timeoutS, png, { limitInputPixels: maxInputPixels })
    .resize(edgePx, edgePx, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 78, mozjpeg: true })
    .toBuffer({ resolveWithObject: true });
  return { bytes: r.data, width: r.info.width, height: r.info.height };
}
