import { BroadcastChannel } from 'node:worker_threads';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.ts';
import { packagePath } from '../package-root.ts';
import type { OcrWord } from '../domain/media/alt-text.ts';

/** Result of one OCR pass: plain text, page confidence (0–100) and word confidences. */
export interface OcrResult {
  text: string;
  confidence: number;
  words: OcrWord[];
}

/** OCR engine shared by all enrichment jobs of one server. */
export interface OcrEngine {
  recognize(png: Buffer): Promise<OcrResult>;
  /** Start the workers now (the job runner's start), so the first analyses do not wait for them; errors are logged. */
  warm?(): void;
  close(): Promise<void>;
}

interface TessWord {
  text: string;
  confidence: number;
}
interface TessBlock {
  paragraphs: { lines: { words: TessWord[] }[] }[];
}

/**
 * Where the English model `eng.traineddata.gz` is: `dist/tessdata` of the package (`npm run build` copies
 * the one file used from `@tesseract.js-data/eng`, a devDependency that also carries a second model), else
 * that package's `4.0.0` folder (a checkout before its first build).
 * @throws Error when neither is there (a broken install)
 */
export function englishModelDir(): string {
  const shipped = packagePath('dist', 'tessdata');
  if (fs.existsSync(path.join(shipped, 'eng.traineddata.gz'))) return shipped;
  try {
    return (createRequire(import.meta.url)('@tesseract.js-data/eng') as { langPath: string }).langPath;
  } catch {
    throw new Error(
      `OCR model missing: ${shipped}/eng.traineddata.gz does not exist and @tesseract.js-data/eng (a devDependency) is not installed; run \`npm run build\` in a checkout, or reinstall the package`,
    );
  }
}

/** Where ocr.worker.mjs posts the engine's console output (`{stream, line}`). */
const NATIVE_OUTPUT_CHANNEL = 'atelier-ocr-native-output';

/**
 * Tesseract (LSTM engine) through tesseract.js, with the English model of `englishModelDir()`
 * (Tesseract's 4.0.0 `eng` from `@tesseract.js-data/eng`) as `langPath`, so nothing is downloaded
 * (https://github.com/naptha/tesseract.js/blob/master/docs/api.md#createworker). `workers` workers
 * (the enrichment jobs that run at once) are created on first use or by `warm`: a worker is a WASM
 * instance of ~100 MB that runs one image at a time on one thread, so with one worker a second core
 * idles while the library is analysed (issue 33: the demo's 22 photos took a minute). Each image goes to
 * the worker with the fewest images in hand. Their threads run at the lowest CPU priority
 * (ocr.worker.mjs), so OCR takes spare cycles, not those of the requests an agent waits on.
 * @param workers Tesseract workers, ≥ 1 (default 1)
 * @param pageSegmentation Tesseract's page segmentation mode: `auto` (PSM 3, the default: see below) or
 *   tesseract.js's default `single-block` (PSM 6, for `npm run bench ocr` to compare against)
 */
export function createOcrEngine(log: Logger, workers = 1, pageSegmentation: 'auto' | 'single-block' = 'auto'): OcrEngine {
  // The engine's native console output (ocr.worker.mjs), as structured log lines instead of raw stderr.
  let nativeOutput: BroadcastChannel | null = null;
  /** a worker, its images in hand, and the chain that keeps one image in its memory at a time */
  interface Slot {
    worker: Promise<import('tesseract.js').Worker> | null;
    inHand: number;
    chain: Promise<unknown>;
  }
  const slots: Slot[] = Array.from({ length: Math.max(1, workers) }, () => ({ worker: null, inHand: 0, chain: Promise.resolve() }));
  const get = (slot: Slot) =>
    (slot.worker ??= (async () => {
      nativeOutput ??= new BroadcastChannel(NATIVE_OUTPUT_CHANNEL);
      nativeOutput.unref();
      nativeOutput.onmessage = (m) => {
        const { stream, line } = (m as { data: { stream: string; line: string } }).data;
        log.debug({ mod: 'ocr', stream, native: line }, 'tesseract native message');
      };
      const t0 = performance.now();
      const { createWorker, OEM, PSM } = await import('tesseract.js');
      const w = await createWorker('eng', OEM.LSTM_ONLY, {
        langPath: englishModelDir(),
        workerPath: fileURLToPath(new URL('./ocr.worker.mjs', import.meta.url)),
        gzip: true,
        cacheMethod: 'none',
        errorHandler: (e: unknown) => log.warn({ err: e }, 'tesseract worker error'),
      });
      // Tesseract's diagnostics ("Invalid resolution …", "Detected N diacritics") go to its debug file
      // instead of the process stderr, which is the log channel (and must stay clean next to stdio).
      // Page segmentation: Tesseract's own default, automatic layout analysis (PSM 3), not tesseract.js's
      // single uniform block (PSM 6), under which the recogniser reads a whole photo's texture as one block
      // of text: most of the OCR time went to pictures without text, for noise.
      await w.setParameters({
        debug_file: '/dev/null',
        tessedit_pageseg_mode: pageSegmentation === 'auto' ? PSM.AUTO : PSM.SINGLE_BLOCK,
      });
      log.debug({ duration_ms: Math.round(performance.now() - t0) }, 'OCR worker ready');
      return w;
    })());
  return {
    warm() {
      for (const slot of slots) void get(slot).catch((err: unknown) => log.warn({ err }, 'OCR worker failed to start'));
    },
    recognize(png) {
      const slot = slots.reduce((a, b) => (b.inHand < a.inHand ? b : a));
      slot.inHand += 1;
      // The worker queues internally too; chaining here keeps one image in its memory at a time.
      const run = slot.chain.then(async () => {
        const w = await get(slot);
        const r = await w.recognize(png, { rotateAuto: true }, { text: true, blocks: true });
        const blocks = (r.data.blocks ?? []) as unknown as TessBlock[];
        const words = blocks.flatMap((b) =>
          b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words.map((x) => ({ text: x.text, confidence: x.confidence })))),
        );
        return { text: r.data.text, confidence: r.data.confidence, words };
      });
      slot.chain = run.catch(() => undefined).finally(() => (slot.inHand -= 1));
      return run;
    },
    async close() {
      nativeOutput?.close();
      nativeOutput = null;
      for (const slot of slots) {
        if (!slot.worker) continue;
        const w = await slot.worker.catch(() => null);
        slot.worker = null;
        await w?.terminate();
      }
    },
  };
}
