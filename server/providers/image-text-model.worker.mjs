// Worker thread of server/providers/image-text-model.ts: one encoder (vision or text) of a CLIP-class
// image–text model, run by transformers.js (@huggingface/transformers, an optional dependency) on
// onnxruntime-node's CPU build. Inference is synchronous native code: on the main thread it would stall
// every request for its length (tens to hundreds of ms per image at ViT-B/32). Plain JavaScript so it
// loads the same under node, tsx and vitest.
// workerData: { source, cacheDir, localOnly, encoder: 'vision' | 'text', threads, nice }.
// Out first: { ready: true, dimensions } or { ready: false, error }.
// In: { id, image: { data: Uint8Array (RGB), width, height } } or { id, texts: string[] }.
// Out: { id, vectors: Float32Array (row-major, L2-normalised), count } or { id, error }.
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

const { source, cacheDir, localOnly, encoder, threads, nice } = workerData;
if (nice > 0) {
  try {
    os.setPriority(nice); // this thread only (setpriority(2) on Linux); onnxruntime's threads inherit it
  } catch {
    // EACCES/ENOSYS: keep the inherited priority
  }
}
// Under the stdio transport stdout is the JSON-RPC channel.
console.log = (...args) => console.error(...args);

/** Rows of a [count, dims] tensor, each scaled to unit length (a zero row stays zero). */
function normalised(tensor) {
  const [count, dims] = tensor.dims;
  const out = new Float32Array(tensor.data);
  for (let r = 0; r < count; r++) {
    let s = 0;
    for (let i = r * dims; i < (r + 1) * dims; i++) s += out[i] * out[i];
    const n = Math.sqrt(s);
    if (n > 0) for (let i = r * dims; i < (r + 1) * dims; i++) out[i] /= n;
  }
  return { vectors: out, count, dims };
}

let run;
try {
  const t = await import('@huggingface/transformers');
  t.env.allowRemoteModels = !localOnly;
  t.env.cacheDir = cacheDir;
  const opts = {
    cache_dir: cacheDir,
    local_files_only: localOnly,
    device: 'cpu',
    dtype: 'fp32',
    session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
  };
  if (encoder === 'vision') {
    const processor = await t.AutoImageProcessor.from_pretrained(source, opts);
    const model = await t.CLIPVisionModelWithProjection.from_pretrained(source, opts);
    run = async (m) => {
      const inputs = await processor(new t.RawImage(m.image.data, m.image.width, m.image.height, 3));
      return normalised((await model(inputs)).image_embeds);
    };
  } else {
    const tokenizer = await t.AutoTokenizer.from_pretrained(source, opts);
    const model = await t.CLIPTextModelWithProjection.from_pretrained(source, opts);
    run = async (m) => normalised((await model(tokenizer(m.texts, { padding: true, truncation: true }))).text_embeds);
  }
  // one run tells the dimensions the model really produces (config.json may not say)
  const probe =
    encoder === 'vision'
      ? await run({ image: { data: new Uint8Array(224 * 224 * 3), width: 224, height: 224 } })
      : await run({ texts: ['a'] });
  parentPort.postMessage({ ready: true, dimensions: probe.dims });
} catch (e) {
  parentPort.postMessage({ ready: false, error: e instanceof Error ? e.message : String(e) });
}

parentPort.on('message', async (m) => {
  if (!run) return parentPort.postMessage({ id: m.id, error: 'model not loaded' });
  try {
    const r = await run(m);
    parentPort.postMessage({ id: m.id, vectors: r.vectors, count: r.count }, [r.vectors.buffer]);
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
