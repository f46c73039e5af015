import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log.ts';

/** Decoded pixels: 8-bit RGB, row-major, `width × height × 3` bytes. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * A loaded CLIP-class image–text model: one encoder for images, one for text, one space. Vectors are
 * L2-normalised; an image and a text are related when their cosine is high.
 */
export interface ImageTextModel {
  /** Identifies the vector space (source and a digest of its config and weight sizes); vectors of different ids are never compared. */
  readonly modelId: string;
  readonly dimensions: number;
  /**
   * Embed one image (the model's processor resizes, crops and normalises it).
   * @throws Error when the encoder fails or its thread died
   */
  embedImage(image: RgbImage): Promise<Float32Array>;
  /** Embed texts, one vector each, in order. @throws Error when the encoder fails */
  embedTexts(texts: string[]): Promise<Float32Array[]>;
}

/** Where the configured model stands: loading (first use, a hub download), ready, or unavailable with the reason. */
export type ImageModelState =
  | { status: 'loading'; model: null; reason: null }
  | { status: 'ready'; model: ImageTextModel; reason: null }
  | { status: 'unavailable'; model: null; reason: string };

/** The configured image–text model of a process (ATELIER_IMAGE_MODEL), loaded once on first `load`. */
export interface ImageTextModelHandle {
  /** ATELIER_IMAGE_MODEL as configured */
  readonly source: string;
  /** Load once (later calls share the first); resolves null when it cannot be loaded (the reason is in `state()` and logged once). */
  load(): Promise<ImageTextModel | null>;
  state(): ImageModelState;
  /** Stop the encoder threads. */
  close(): Promise<void>;
}

type Ready = { ready: true; dimensions: number } | { ready: false; error: string };
type Reply = { id: number; vectors: Float32Array; count: number } | { id: number; error: string };

/** The optional dependency, as an operator installs it (package.json peerDependencies). */
const INSTALL_HINT = 'npm install @huggingface/transformers@4.3.1 (optional dependency; brings onnxruntime-node)';

/** Whether `source` names a folder on disk rather than a model id of the hub ("owner/name"). */
export function isLocalModelSource(source: string): boolean {
  return path.isAbsolute(source) || source.startsWith('.') || /^[a-zA-Z]:[\\/]/.test(source) || fs.existsSync(source);
}

/**
 * Space id of a local folder: its name and a digest of its config.json and the sizes of its ONNX
 * files, so a folder whose weights change gets a new space instead of mixing vectors.
 */
function localModelId(dir: string): string {
  const h = createHash('sha256');
  h.update(fs.readFileSync(path.join(dir, 'config.json')));
  for (const f of ['vision_model.onnx', 'text_model.onnx']) h.update(`${f}:${fs.statSync(path.join(dir, 'onnx', f)).size};`);
  return `clip:${path.basename(dir)}@${h.digest('hex').slice(0, 12)}`;
}

/** One encoder on its own worker thread (image-text-model.worker.mjs). */
function startEncoder(
  encoder: 'vision' | 'text',
  data: { source: string; cacheDir: string; localOnly: boolean; threads: number; nice: number },
  onDeath: (reason: string) => void,
) {
  const worker = new Worker(new URL('./image-text-model.worker.mjs', import.meta.url), { workerData: { ...data, encoder } });
  worker.unref();
  let nextId = 1;
  const pending = new Map<number, { resolve(v: Float32Array[]): void; reject(e: Error): void }>();
  const failAll = (e: Error): void => {
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  let dims = 0;
  const ready = new Promise<Ready>((resolve) => {
    worker.once('message', (m: Ready) => resolve(m));
    worker.once('error', (e: Error) => resolve({ ready: false, error: e.message }));
    worker.once('exit', (code) => resolve({ ready: false, error: `encoder thread exited (code ${code})` }));
  });
  void ready.then((r) => {
    if (!r.ready) return;
    dims = r.dimensions;
    worker.on('message', (m: Reply) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if ('error' in m) p.reject(new Error(`${encoder} encoder: ${m.error}`));
      else p.resolve(Array.from({ length: m.count }, (_, i) => m.vectors.subarray(i * dims, (i + 1) * dims)));
    });
    worker.on('error', (e: Error) => failAll(e));
    worker.on('exit', (code) => {
      failAll(new Error(`${encoder} encoder thread exited (code ${code})`));
      onDeath(`the ${encoder} encoder thread exited (code ${code})`);
    });
  });
  return {
    ready,
    run(msg: { image: RgbImage } | { texts: string[] }): Promise<Float32Array[]> {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, ...msg });
      });
    },
    stop: () => worker.terminate(),
  };
}

/**
 * The image–text model named by ATELIER_IMAGE_MODEL: a model id of the hub, downloaded once into
 * `<dataDir>/models` (transformers.js's file cache, as photo libraries such as Immich keep theirs), or a
 * local folder in the layout of a transformers.js CLIP export (config.json, preprocessor_config.json,
 * tokenizer.json, onnx/vision_model.onnx, onnx/text_model.onnx). Each encoder runs on its own worker
 * thread with transformers.js (@huggingface/transformers 4, an optional dependency) on onnxruntime-node's
 * CPU build: inference is synchronous native code and would otherwise stall the event loop, and a text
 * query never waits behind an image. The vision thread runs at `nice` (the image pool's priority); the
 * text thread at the process's own, since queries are embedded at search.
 * Nothing is loaded until `load`; when the package is missing, the folder is incomplete or the download
 * fails, `load` resolves null and `state()` says why (logged once as a warning).
 * @param threads onnxruntime intra-op threads per encoder (≥ 1)
 */
export function createImageTextModel(o: {
  source: string;
  dataDir: string;
  threads: number;
  nice: number;
  log: Logger;
}): ImageTextModelHandle {
  let state: ImageModelState = { status: 'loading', model: null, reason: null };
  let loading: Promise<ImageTextModel | null> | null = null;
  let encoders: ReturnType<typeof startEncoder>[] = [];
  let closed = false;
  const unavailable = (reason: string): null => {
    if (closed) return null;
    state = { status: 'unavailable', model: null, reason };
    o.log.warn({ model: o.source, reason }, 'image model unavailable: search runs without it (words, meaning and colours only)');
    return null;
  };

  const load = async (): Promise<ImageTextModel | null> => {
    try {
      import.meta.resolve('@huggingface/transformers');
    } catch {
      return unavailable(`@huggingface/transformers is not installed: ${INSTALL_HINT}`);
    }
    const local = isLocalModelSource(o.source);
    const source = local ? path.resolve(o.source) : o.source;
    let modelId: string;
    try {
      modelId = local ? localModelId(source) : `clip:${o.source}`;
    } catch (err) {
      return unavailable(
        `${source} is not a CLIP export folder (config.json, onnx/vision_model.onnx, onnx/text_model.onnx): ${(err as Error).message}`,
      );
    }
    const data = { source, cacheDir: path.join(o.dataDir, 'models'), localOnly: local, threads: o.threads };
    const started = performance.now();
    const onDeath = (reason: string): void => void unavailable(reason);
    encoders = [startEncoder('vision', { ...data, nice: o.nice }, onDeath), startEncoder('text', { ...data, nice: 0 }, onDeath)];
    const [vision, text] = encoders as [ReturnType<typeof startEncoder>, ReturnType<typeof startEncoder>];
    const [v, t] = await Promise.all([vision.ready, text.ready]);
    if (!v.ready || !t.ready) {
      await Promise.all(encoders.map((e) => e.stop()));
      return unavailable(`${o.source} could not be loaded: ${!v.ready ? v.error : !t.ready ? t.error : ''}`);
    }
    if (v.dimensions !== t.dimensions) {
      await Promise.all(encoders.map((e) => e.stop()));
      return unavailable(`${o.source}: image embeddings have ${v.dimensions} dimensions, text embeddings ${t.dimensions}`);
    }
    const model: ImageTextModel = {
      modelId,
      dimensions: v.dimensions,
      embedImage: async (image) => (await vision.run({ image }))[0]!,
      embedTexts: (texts) => (texts.length === 0 ? Promise.resolve([]) : text.run({ texts })),
    };
    state = { status: 'ready', model, reason: null };
    o.log.info({ model: modelId, dimensions: v.dimensions, ms: Math.round(performance.now() - started) }, 'image model loaded');
    return model;
  };

  return {
    source: o.source,
    load: () => (loading ??= load().catch((err: unknown) => unavailable(err instanceof Error ? err.message : String(err)))),
    state: () => state,
    async close() {
      closed = true;
      await Promise.all(encoders.map((e) => e.stop()));
    },
  };
}
