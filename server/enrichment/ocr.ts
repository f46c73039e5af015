import { createRequire } from 'node:module';
import type { Logger } from '../log.ts';
import type { OcrWord } from '../domain/alt-text.ts';

/** Result of one OCR pass: plain text, page confidence (0–100) and word confidences. */
export interface OcrResult { text: string; confidence: number; words: OcrWord[] }

/** OCR engine shared by all enrichment jobs of one server. */
export interface OcrEngine {
  recognize(png: Buffer): Promise<OcrResult>;
  close(): Promise<void>;
}

interface TessWord { text: string; confidence: number }
interface TessBlock { paragraphs: { lines: { words: TessWord[] }[] }[] }

/**
 * Tesseract (LSTM engine) through tesseract.js, with the English model from the
 * `@tesseract.js-data/eng` package as `langPath`, so nothing is downloaded
 * (https://github.com/naptha/tesseract.js/blob/master/docs/api.md#createworker). One worker is
 * created on first use and shared: a worker is a WASM instance of ~100 MB that runs one image at a
 * time, and two cores do not profit from more.
 */
export function createOcrEngine(log: Logger): OcrEngine {
  let worker: Promise<import('tesseract.js').Worker> | null = null;
  const get = () =>
    (worker ??= (async () => {
      const t0 = performance.now();
      const { createWorker, OEM } = await import('tesseract.js');
      const eng = createRequire(import.meta.url)('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };
      const w = await createWorker('eng', OEM.LSTM_ONLY, { langPath: eng.langPath, gzip: eng.gzip, cacheMethod: 'none', errorHandler: (e: unknown) => log.warn({ err: e }, 'tesseract worker error') });
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
        const words = blocks.flatMap((b) => b.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words.map((x) => ({ text: x.text, confidence: x.confidence })))));
        return { text: r.data.text, confidence: r.data.confidence, words };
      });
      chain = run.catch(() => undefined);
      return run;
    },
    async close() {
      if (!worker) return;
      const w = await worker.catch(() => null);
      worker = null;
      await w?.terminate();
    },
  };
}
