import { BroadcastChannel } from 'node:worker_threads';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.ts';
import { packagePath } from '../package-root.ts';
import type { OcrWord } from '../domain/alt-text.ts';

/** Result of one OCR pass: plain text, page confidence (0–100) and word confidences. */
export interface OcrResult {
  text: string;
  confidence: number;
  words: OcrWord[];
}

/** OCR engine shared by all enrichment jobs of one server. */
export interface OcrEngine {
  recognize(png: Buffer): Promise<OcrResult>;
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
 * (https://github.com/naptha/tesseract.js/blob/master/docs/api.md#createworker). One worker is
 * created on first use and shared: a worker is a WASM instance of ~100 MB that runs one image at a
 * time, and two cores do not profit from more. Its thread runs at the lowest CPU priority
 * (ocr.worker.mjs), so OCR takes spare cycles, not those of the requests an agent waits on.
 */
export function createOcrEngine(log: Logger): OcrEngine {
  let worker: Promise<import('tesseract.js').Worker> | null = null;
  // The engine's native console output (ocr.worker.mjs), as structured log lines instead of raw stderr.
  let nativeOutput: BroadcastChannel | null = null;
  const get = () =>
    (worker ??= (async () => {
      nativeOutput ??= new BroadcastChannel(NATIVE_OUTPUT_CHANNEL);
      nativeOutput.unref();
      nativeOutput.onmessage = (m) => {
        const { stream, line } = (m as { data: { stream: string; line: string } }).data;
        log.debug({ mod: 'ocr', stream, native: line }, 'tesseract native message');
      };
      const t0 = performance.now();
      const { createWorker, OEM } = await import('tesseract.js');
      const w = await createWorker('eng', OEM.LSTM_ONLY, {
        langPath: englishModelDir(),
        workerPath: fileURLToPath(new URL('./ocr.worker.mjs', import.meta.url)),
        gzip: true,
        cacheMethod: 'none',
        errorHandler: (e: unknown) => log.warn({ err: e }, 'tesseract worker error'),
      });
      // Tesseract's diagnostics ("Invalid resolution …", "Detected N diacritics") go to its debug file
      // instead of the process stderr, which is the log channel (and must stay clean next to stdio).
      await w.setParameters({ debug_file: '/dev/null' });
      log.debug({ duration_ms: Math.round(performance.now() - t0) }, 'OCR worker ready');
      return w;
    })());
  let chain: Promise<unknown> = Promise.resolve();
  return {
    recognize(png) {
      // The worker queues internally too; chaining here keeps one image in its memory at a time.
      const run = chain.then(async () => {
        const w = await get();
        const r = await w.recognize(png, { rotateAuto: true }, { text: true, blocks: true });
        const blocks = (r.data.blocks ?? []) as unknown as TessBlock[];
        const words = blocks.flatMap((b) =>
          b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words.map((x) => ({ text: x.text, confidence: x.confidence })))),
        );
        return { text: r.data.text, confidence: r.data.confidence, words };
      });
      chain = run.catch(() => undefined);
      return run;
    },
    async close() {
      nativeOutput?.close();
      nativeOutput = null;
      if (!worker) return;
      const w = await worker.catch(() => null);
      worker = null;
      await w?.terminate();
    },
  };
}
