/**
 * Image–text model throughput at full size (issue 33 item 6), on a model with the arithmetic of CLIP
 * ViT-B/32 and random weights (scripts/image-model/make-clip-model.py --shape vit-b-32, ~600 MB,
 * generated on first run into .cache/image-model/; needs Debian's python3-torch and python3-onnx, else
 * the bench says what to install and stops). Reports, through the server's own provider (encoders on
 * worker threads, transformers.js on onnxruntime-node's CPU build):
 * - model load time and the process's RSS growth once both encoders are loaded and have run;
 * - image embeddings per second (wall, and from CPU time: robust on a shared machine) with 1 and 2 onnxruntime threads per encoder
 *   (ATELIER_IMAGE_MODEL_THREADS), on 224 px rasters of the demo photos (decode excluded);
 * - text-query embedding time (p50/p95 of one-query calls);
 * - import throughput of the first 10 demo photos (HEIC aside) with the model off and on: the import calls alone
 *   (enrichment is asynchronous) and until enrichment has finished (OCR off, as in the tests).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitForEnrichment } from '../e2e/mcp/enrichment-helpers.ts';
import { REPO_ROOT, startTestServer } from '../e2e/mcp/harness.ts';
import { modelRaster } from '../server/enrichment/image-embedding.ts';
import { createLogger } from '../server/log.ts';
import { createImageTextModel, type RgbImage } from '../server/providers/image-text-model.ts';
import { DEMO_IMAGES_DIR, listImageFiles } from '../server/seed.ts';
import { percentile, table } from './stats.ts';

const MODEL_DIR = path.join(REPO_ROOT, '.cache/image-model/clip-vit-b-32-random');
const MIME: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.heic': 'image/heic',
};
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** The ViT-B/32-shaped model, generated once. @returns false when the generator cannot run here */
function ensureModel(): boolean {
  if (fs.existsSync(path.join(MODEL_DIR, 'onnx', 'text_model.onnx'))) return true;
  try {
    execFileSync(PYTHON, ['-c', 'import torch, onnx'], { stdio: 'ignore' });
  } catch {
    process.stdout.write(
      'python3-torch and python3-onnx are needed to generate the model: apt-get install -y python3-torch python3-onnx\n',
    );
    return false;
  }
  process.stdout.write(`generating ${MODEL_DIR} (ViT-B/32 shape, random weights; about a minute) …\n`);
  execFileSync(PYTHON, [path.join(REPO_ROOT, 'scripts/image-model/make-clip-model.py'), '--shape', 'vit-b-32', '--out', MODEL_DIR], {
    stdio: 'inherit',
  });
  return true;
}

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
/** CPU time (user + system, every thread of the process, workers included) since `from`, ms: what a shared, loaded machine distorts least. */
const cpuMs = (from: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};
const TEXT_QUERIES = 20;
/** Demo photos embedded and imported per leg (the first ones, HEIC aside): enough for a rate, short enough for a loaded machine. */
const PHOTOS = 10;
/** A tool call may wait behind image work far longer than the SDK's 60 s default on a loaded machine. */
const CALL_TIMEOUT_MS = 15 * 60_000;

async function encoders(rasters: RgbImage[], threads: number): Promise<(string | number)[]> {
  const rss0 = process.memoryUsage().rss;
  const handle = createImageTextModel({ source: MODEL_DIR, dataDir: os.tmpdir(), threads, nice: 0, log: createLogger('silent') });
  const t0 = performance.now();
  const model = await handle.load();
  if (!model) throw new Error(`model did not load: ${handle.state().reason}`);
  const loadMs = performance.now() - t0;
  try {
    await model.embedImage(rasters[0]!); // warm-up
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    for (const r of rasters) await model.embedImage(r);
    const perSecond = rasters.length / ((performance.now() - t1) / 1000);
    const imageCpu = cpuMs(c1) / rasters.length;
    const text: number[] = [];
    const queries = ['red sofa', 'alpine landscape at dawn', 'dog', 'a bottle of craft beer on a wooden table'];
    const c2 = process.cpuUsage();
    for (let i = 0; i < TEXT_QUERIES; i++) {
      const t = performance.now();
      await model.embedTexts([queries[i % queries.length]!]);
      text.push(performance.now() - t);
    }
    const textCpu = cpuMs(c2) / TEXT_QUERIES;
    return [
      threads,
      (loadMs / 1000).toFixed(1),
      perSecond.toFixed(2),
      imageCpu.toFixed(0),
      ((os.availableParallelism() * 1000) / imageCpu).toFixed(1),
      percentile(text, 50).toFixed(0),
      percentile(text, 95).toFixed(0),
      textCpu.toFixed(0),
      mib(process.memoryUsage().rss - rss0),
    ];
  } finally {
    await handle.close();
  }
}

async function imports(files: { name: string; bytes: Buffer }[], model: string | null): Promise<(string | number)[]> {
  const srv = await startTestServer({ env: { ATELIER_OCR: '0', ...(model ? { ATELIER_IMAGE_MODEL: model } : {}) } });
  try {
    const c = await srv.connect();
    if (model) {
      // the model loads when the workers start; wait for it so the figure is the embedding, not the load
      for (;;) {
        const r = await c.call('svc_asset_library', 'search', { theme_id: srv.tenant.theme_id, query: 'x' });
        const s = (r.structured.request as { image_model?: { status: string } }).image_model?.status;
        if (s === 'ready') break;
        if (s === 'unavailable') throw new Error(r.text);
        await new Promise((res) => setTimeout(res, 200));
      }
    }
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (const f of files) {
      const args = {
        data: f.bytes.toString('base64'),
        mime_type: MIME[path.extname(f.name).toLowerCase()] ?? 'image/jpeg',
        filename: f.name,
      };
      const r = await c.client.callTool({ name: 'svc_asset_import', arguments: { action: 'import', args } }, { timeout: CALL_TIMEOUT_MS });
      if (r.isError) throw new Error(`${f.name}: ${JSON.stringify(r.content)}`);
    }
    const imported = (performance.now() - t0) / 1000;
    await waitForEnrichment(c, srv.tenant.theme_id, CALL_TIMEOUT_MS);
    const enriched = (performance.now() - t0) / 1000;
    return [
      model ? 'on' : 'off',
      (files.length / imported).toFixed(2),
      (files.length / enriched).toFixed(2),
      enriched.toFixed(1),
      (cpuMs(c0) / files.length).toFixed(0),
      mib(process.memoryUsage().rss),
    ];
  } finally {
    await srv.close();
  }
}

export default async function imageModelBench(): Promise<void> {
  if (!ensureModel()) return;
  const files = listImageFiles(DEMO_IMAGES_DIR)
    .filter((f) => !f.endsWith('.heic'))
    .slice(0, PHOTOS)
    .map((f) => ({ name: path.basename(f), bytes: fs.readFileSync(f) }));
  const rasters: RgbImage[] = [];
  for (const f of files) rasters.push(await modelRaster(f.bytes));
  process.stdout.write(
    `ViT-B/32-shaped model (random weights), ${rasters.length} demo photos as 224 px rasters, ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(1)}\n`,
  );
  table(
    [
      'threads per encoder',
      'load s',
      'image embeddings/s (wall)',
      'CPU ms per image',
      'image embeddings/s on all cores (from CPU ms)',
      'text query p50 ms',
      'text query p95 ms',
      'CPU ms per text query',
      'RSS growth MiB',
    ],
    [await encoders(rasters, 1), await encoders(rasters, 2)],
  );
  table(
    [
      'image model',
      'imports/s (calls)',
      'imports/s (until enriched)',
      'until enriched s',
      'CPU ms per photo (import + enrichment)',
      'process RSS MiB',
    ],
    // a first, unreported leg pays what any first server of the process pays (WordNet, word vectors, JIT)
    await imports(files.slice(0, 3), null).then(async () => [await imports(files, null), await imports(files, MODEL_DIR)]),
  );
}
