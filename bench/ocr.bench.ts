/**
 * OCR cost and yield on the demo photos, through the server's own engine (server/enrichment/ocr.ts, one
 * tesseract.js worker) on the raster enrichment gives it (greyscale, ≤ OCR_MAX_PX on the long side): Tesseract's automatic page
 * segmentation (PSM 3, what the server uses) against tesseract.js's default single uniform block (PSM 6, the
 * peer). Prints per photo the seconds and the text enrichment keeps (`cleanOcr`), then the totals and their
 * ratio. The HEIC is left out (sharp cannot decode it; the server decodes it with libheif first).
 */
import path from 'node:path';
import sharp from 'sharp';
import { cleanOcr } from '../server/domain/media/alt-text.ts';
import { OCR_MAX_PX } from '../server/enrichment/analyze.ts';
import { createOcrEngine } from '../server/enrichment/ocr.ts';
import { createLogger } from '../server/log.ts';
import { DEMO_IMAGES_DIR, listImageFiles } from '../server/seed.ts';
import { table } from './stats.ts';

const MODES = ['auto', 'single-block'] as const;

export default async function ocrBench(): Promise<void> {
  const files = listImageFiles(DEMO_IMAGES_DIR).filter((f) => !/\.heic$/i.test(f));
  const rasters = await Promise.all(
    files.map((f) =>
      sharp(f)
        .rotate()
        .resize(OCR_MAX_PX, OCR_MAX_PX, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .greyscale()
        .png()
        .toBuffer(),
    ),
  );
  const log = createLogger('silent');
  const seconds = new Map<string, number[]>();
  const kept = new Map<string, (string | null)[]>();
  for (const mode of MODES) {
    const engine = createOcrEngine(log, 1, mode);
    await engine.recognize(rasters[0]!); // worker start and model load, not measured
    const s: number[] = [];
    const k: (string | null)[] = [];
    for (const png of rasters) {
      const t0 = performance.now();
      const r = await engine.recognize(png);
      s.push((performance.now() - t0) / 1000);
      k.push(cleanOcr(r.text, r.confidence, r.words));
    }
    await engine.close();
    seconds.set(mode, s);
    kept.set(mode, k);
  }
  const clip = (t: string | null): string => (t === null ? '—' : t.replace(/\s+/g, ' ').slice(0, 48));
  table(
    ['photo', 'auto s', 'auto keeps', 'single-block s', 'single-block keeps'],
    files.map((f, i) => [
      path.basename(f),
      seconds.get('auto')![i]!.toFixed(2),
      clip(kept.get('auto')![i]!),
      seconds.get('single-block')![i]!.toFixed(2),
      clip(kept.get('single-block')![i]!),
    ]),
  );
  const total = (mode: string): number => seconds.get(mode)!.reduce((a, b) => a + b, 0);
  const withText = (mode: string): number => kept.get(mode)!.filter((t) => t !== null).length;
  table(
    ['page segmentation', 'total s', 'photos with kept text', 'time vs single-block'],
    MODES.map((m) => [m, total(m).toFixed(1), String(withText(m)), `${(total(m) / total('single-block')).toFixed(2)}×`]),
  );
}
