import type { AssetEnrichmentStore } from '../db/ports/asset-enrichment-store.ts';
import type { AssetRow, AssetStore } from '../db/ports/asset-store.ts';
import type { CalibrationStore } from '../db/ports/calibration-store.ts';
import type { JobLease, JobQueue, JobRow } from '../db/ports/job-queue.ts';
import type { VectorStore } from '../db/ports/vector-store.ts';
import { compoundHeads, type Thesaurus } from '../domain/search/concepts.ts';
import { nameWords } from '../domain/media/alt-text.ts';
import { VISUAL_DIMENSIONS, VISUAL_MODEL_ID } from '../domain/media/colour.ts';
import type { AssetStoredHook } from '../assets/deps.ts';
import type { AssetVectorSearch } from '../assets/search.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { analyzeImage, type ImageRunner } from './analyze.ts';
import { assetEmbeddingText, nameOnly, promptOf } from './asset-text.ts';
import { processSpaces } from './spaces.ts';
import type { ImageCaptioner } from '../providers/vision-http.ts';
import type { OcrEngine } from './ocr.ts';
import { createJobRunner, type JobOutcome } from './queue.ts';
import { createAssetVectorSearch } from './vector-search.ts';
import { createImageSpaceSearch, embedImageBytes } from './image-embedding.ts';
import type { ImageTextModelHandle } from '../providers/image-text-model.ts';
import type { TestHooks } from '../test-hooks.ts';

/** Everything enrichment needs, built in the composition root: ports only, so it runs on SQLite or PostgreSQL. */
export interface EnrichmentDeps {
  assets: AssetStore;
  /** the durable job queue */
  jobs: JobQueue;
  /** enrichment columns and facts of the assets (the same database as `assets`) */
  enrichment: AssetEnrichmentStore;
  /** the asset vectors (the same database as `assets`); KNN of semantic and similar search */
  vectors: VectorStore;
  blobs: BlobStore;
  embedder: TextEmbedder | null;
  /** null = OCR disabled */
  ocr: OcrEngine | null;
  /** vision model for machine alt text; null = heuristic alt text only */
  captioner: ImageCaptioner | null;
  /** the image–text model (ATELIER_IMAGE_MODEL; loaded when the runner starts or on first search), or null */
  imageModel?: ImageTextModelHandle | null;
  /** where image decodes run (the server's image pool at background priority); default: at once */
  images?: ImageRunner | undefined;
  concurrency: number;
  /** first retry delay of a failed job, ms */
  retryBaseMs: number;
  /** stored null models of the vector spaces (calibrated acceptance) */
  calibrations: CalibrationStore;
  /** family-wise false-match rate of semantic and visual acceptance (domain/search/calibration.ts) */
  matchAlpha: number;
  /** WordNet nouns for calibration's background probes (null when unavailable) */
  thesaurus: () => Promise<Thesaurus | null>;
  log: Logger;
  /** TEST ONLY pause points (server/test-hooks.ts) */
  testHooks?: TestHooks;
}

/** The running enrichment module. */
export interface Enrichment {
  /** onAssetStored hook: queue analysis of a new asset. */
  hook: AssetStoredHook;
  /** KNN implementation for `searchAssets`. */
  vectors: AssetVectorSearch;
  /** Queue re-analysis and re-embedding of one asset (after a metadata change); store errors are logged. */
  refresh(seq: number): Promise<void>;
  /** Start the job runner (serve/start only; other processes just queue jobs for it). */
  start(): void;
  close(): Promise<void>;
}

/**
 * Asynchronous enrichment (spec §2 "Imported asset", §3): after import an `analyze` job computes OCR
 * text, dominant colours, orientation, auto tags, machine alt text (only stored as `alt_text` when
 * the user gave none) and the visual vector; then an `embed_text` job embeds the asset's text with
 * the configured embedder. Jobs are durable and idempotent (see queue.ts). A change of text model
 * creates a new vector space that is filled in the background; until it is complete semantic search
 * reports itself unavailable (search degrades to lexical) instead of mixing spaces. Every store is a
 * port (server/db/ports/*), so the module runs on SQLite or PostgreSQL alike; when the vector store
 * is unavailable (PostgreSQL without pgvector) the reason is logged at setup, analyses are still
 * written, and semantic and similar search degrade to lexical. When another process retires this
 * process's space of a purpose (it runs another model and made its own space ready), puts and the
 * promotion meet `VectorSpaceRetiredError`: this process then stops storing and searching vectors of
 * that purpose (its jobs still succeed) rather than fight over the live space.
 * With an image–text model (ATELIER_IMAGE_MODEL), `analyze` also queues an `embed_image` job: the
 * model's embedding of the picture, computed on the image pool at background priority, into the
 * `asset_image` space (set up once the model has loaded; a new model's space is built in the
 * background like the others). A model that cannot be loaded leaves everything else as it was.
 */
export function createEnrichment(d: EnrichmentDeps): Enrichment {
  const { assets, jobs, enrichment, vectors, log } = d;

  const spaces = processSpaces(vectors, enrichment, log);
  let vectorsAvailable = false;
  // The vector spaces of the configured models, their backfill jobs (a new space is built in the
  // background), and the promotion of a space whose build finished while no process ran. Awaited by
  // start, close and every vector search; search sees the promotion once it resolves.
  const ready = (async () => {
    const available = await vectors.available();
    if (!available.ok) {
      log.warn(
        { reason: available.reason },
        'vector store unavailable: no vectors are stored; semantic and similar search degrade to lexical',
      );
      return;
    }
    vectorsAvailable = true;
    const visual = await spaces.setUp('asset_visual', VISUAL_MODEL_ID, VISUAL_DIMENSIONS);
    const text = d.embedder ? await spaces.setUp('asset_text', d.embedder.modelId, d.embedder.dimensions) : null;
    if (visual.backfill.length) await jobs.enqueueMany(visual.backfill, 'analyze');
    if (text?.backfill.length) await jobs.enqueueMany(text.backfill, 'embed_text');
    await spaces.promoteIfBuilt('asset_visual', () => jobs.pendingKind('analyze'));
    await spaces.promoteIfBuilt('asset_text', () => jobs.pendingKind('embed_text'));
  })();
  ready.catch((err: unknown) => log.error({ err }, 'enrichment setup failed: vector spaces were not backfilled'));
  const settledSetup = (): Promise<void> => ready.catch(() => undefined);

  // The image–text model's space needs the model's dimensions, so it is set up once the model has
  // loaded (a first hub download can take minutes): apart from `ready`, so no other search or job waits
  // for it. Started by `start` or the first search; `embed_image` jobs wait for it.
  let imageSetup: Promise<boolean> | null = null;
  const imageReady = (): Promise<boolean> =>
    (imageSetup ??= (async () => {
      await settledSetup();
      if (!d.imageModel || !vectorsAvailable) return false;
      const model = await d.imageModel.load();
      if (!model) return false;
      const image = await spaces.setUp('asset_image', model.modelId, model.dimensions);
      if (image.backfill.length) {
        await jobs.enqueueMany(image.backfill, 'embed_image');
        runner.kick();
      }
      await spaces.promoteIfBuilt('asset_image', () => jobs.pendingKind('embed_image'));
      return spaces.held('asset_image') !== null;
    })().catch((err: unknown) => {
      log.error({ err }, 'image model space setup failed: image embeddings are off until a restart');
      return false;
    }));

  /**
   * The bytes an asset's pixels are analysed from: the stored file, except for SVG, whose widest raster
   * rendition is read instead (rendered once at import under a time limit; the document itself could
   * cost minutes of rendering again).
   */
  const pixelsOf = async (row: AssetRow): Promise<Buffer> => {
    if (row.kind !== 'svg') return d.blobs.get(row.sha256);
    const widest = (await assets.renditions(row.seq)).sort((a, b) => b.width * b.height - a.width * a.height)[0];
    return d.blobs.get(widest?.sha256 ?? row.sha256);
  };
  /** Whether the row still exists as the same asset (rows can be deleted while a job awaits). */
  const sameAsset = async (row: AssetRow): Promise<boolean> => (await assets.bySeq(row.seq))?.id === row.id;
  /** The kinds a file name's compound words name ("notocactus" → cactus), for its machine alt text; [] without a thesaurus. */
  const nameHeads = async (name: string): Promise<string[]> => {
    const words = nameWords(name).split(' ').filter(Boolean);
    const t = words.length ? await d.thesaurus() : null;
    return t ? compoundHeads(t, words) : [];
  };

  // Handlers check `signal` before each write: it aborts when the runner closes or the job's lease was
  // lost to another runner (queue.ts), and the analysis itself is written only under the lease.
  const analyze = async (job: JobRow, signal: AbortSignal, lease: JobLease): Promise<JobOutcome> => {
    const row = await assets.bySeq(job.asset_seq);
    if (!row) return 'skipped';
    if (row.kind === 'video') return 'skipped';
    if (row.enrichment_status === 'pending') await enrichment.setAssetStatus(row.seq, 'running');
    const bytes = await pixelsOf(row);
    signal.throwIfAborted();
    const userAlt = row.user_fields.includes('alt_text');
    const prompt = promptOf(row);
    const a = await analyzeImage(
      bytes,
      {
        name: row.name,
        prompt,
        kind: row.kind,
        wantCaption: !userAlt,
        // user tags stay authoritative (spec §2): the file's keywords only fill their absence
        wantKeywords: !row.user_fields.includes('tags'),
        heads: userAlt || prompt ? [] : await nameHeads(row.name),
      },
      d.ocr,
      d.captioner ? { captioner: d.captioner, log, signal } : undefined,
      d.images,
    );
    await d.testHooks?.pause('enrichment-analyze');
    signal.throwIfAborted();
    if (!(await sameAsset(row))) return 'skipped'; // deleted while it was analysed
    const written = await enrichment.writeAnalysis(
      row.seq,
      {
        colors: a.colours,
        orientation: a.orientation,
        ocrText: a.ocrText,
        ocrConfidence: a.ocrConfidence,
        autoTags: a.autoTags,
        machineAltText: a.machineAltText,
        caption: a.caption,
        captionModelId: a.captionModelId,
      },
      lease,
    );
    if (!written) return 'skipped'; // deleted since
    signal.throwIfAborted();
    // the store takes the vector's filter metadata (kind, category, subtype) from the row as it is now
    const visualSpace = spaces.held('asset_visual');
    if (visualSpace && (await spaces.store(visualSpace, row, a.visual)) === 'stored')
      await enrichment.setVisualModel(row.seq, VISUAL_MODEL_ID);
    // The follow-up jobs are due as of this job's own due time, so they come before the analyses queued
    // after it (the queue claims oldest due first): each asset is done (searchable by meaning, counted out
    // of `request.indexing`) right after its analysis, not after the whole batch has been analysed.
    if (d.embedder && spaces.held('asset_text')) await jobs.enqueue(row.seq, 'embed_text', job.run_after);
    if (d.imageModel && d.imageModel.state().status !== 'unavailable') await jobs.enqueue(row.seq, 'embed_image', job.run_after);
    return 'success';
  };

  /** The image–text model's embedding of an image asset, on the image pool at the enrichment's priority. */
  const embedImage = async (job: JobRow, signal: AbortSignal): Promise<JobOutcome> => {
    if (!(await imageReady())) return 'skipped';
    const space = spaces.held('asset_image');
    const model = d.imageModel?.state().model;
    const row = await assets.bySeq(job.asset_seq);
    if (!row || row.kind === 'video' || !space || !model) return 'skipped';
    const v = await embedImageBytes(model, await pixelsOf(row), d.images ?? { run: (op) => op() });
    signal.throwIfAborted();
    if (!(await sameAsset(row))) return 'skipped'; // deleted while it was embedded
    signal.throwIfAborted();
    await spaces.store(space, row, v);
    return 'success';
  };

  const embedText = async (job: JobRow, signal: AbortSignal): Promise<JobOutcome> => {
    const row = await assets.bySeq(job.asset_seq);
    const space = spaces.held('asset_text');
    if (!row || !d.embedder || !space) return 'skipped';
    const facts = await enrichment.facts(row.seq);
    // Every analysed asset gets a text vector: its words, else (or when the embedder knows none of them)
    // the fallback of its kind, orientation and colours.
    const { text, fallback } = assetEmbeddingText(row, facts, nameOnly(row, facts) ? await d.thesaurus() : null);
    let [v] = await d.embedder.embed([text.trim() ? text : fallback], signal);
    if (v && !v.some((x) => x !== 0) && text.trim()) [v] = await d.embedder.embed([`${text}. ${fallback}`], signal);
    if (!v) throw new Error('embedder returned no vector');
    if (!(await sameAsset(row))) return 'skipped'; // deleted while it was embedded
    signal.throwIfAborted();
    // the space retired meanwhile: no text vector of this model is kept anywhere
    if (v.some((x) => x !== 0) && (await spaces.store(space, row, v)) === 'retired') return 'skipped';
    signal.throwIfAborted();
    await enrichment.setTextModel(row.seq, d.embedder.modelId);
    return 'success';
  };

  const runner: ReturnType<typeof createJobRunner> = createJobRunner({
    jobs,
    handlers: { analyze, embed_text: embedText, embed_image: embedImage },
    concurrency: d.concurrency,
    retryBaseMs: d.retryBaseMs,
    log,
    async onSettled(job, state) {
      if (state === 'queued') return;
      if ((await jobs.pendingOf(job.asset_seq)) === 0) {
        const failed = (await jobs.failedOf(job.asset_seq)) > 0;
        const row = await assets.bySeq(job.asset_seq);
        if (row) await enrichment.setAssetStatus(row.seq, row.kind === 'video' ? 'skipped' : failed ? 'failed' : 'done');
      }
      const purpose = ({ analyze: 'asset_visual', embed_text: 'asset_text', embed_image: 'asset_image' } as const)[job.kind];
      await spaces.promoteIfBuilt(purpose, () => jobs.pendingKind(job.kind));
    },
  });

  /** The text and visual spaces' search, plus the image–text model's space when one is configured. */
  const withImageSpace = (search: AssetVectorSearch): AssetVectorSearch =>
    d.imageModel
      ? {
          ...search,
          image: createImageSpaceSearch({
            vectors,
            assets,
            calibrations: d.calibrations,
            handle: d.imageModel,
            thesaurus: d.thesaurus,
            alpha: d.matchAlpha,
            log,
            space: async () => {
              void imageReady(); // a process that runs no job runner loads the model on its first search
              return spaces.current('asset_image');
            },
          }),
        }
      : search;

  return {
    start: () => {
      d.ocr?.warm?.(); // the OCR workers start while the vector spaces are set up, not on the first job
      void ready.then(() => runner.start()).catch(() => undefined);
      void imageReady();
    },
    async hook(asset) {
      await jobs.enqueue(asset.seq, 'analyze');
      runner.kick();
    },
    vectors: withImageSpace(
      createAssetVectorSearch({
        vectors,
        assets,
        calibrations: d.calibrations,
        thesaurus: d.thesaurus,
        alpha: d.matchAlpha,
        embedder: d.embedder,
        textSpace: async () => {
          await settledSetup();
          return spaces.current('asset_text');
        },
        visualSpace: async () => {
          await settledSetup();
          return spaces.current('asset_visual');
        },
        computeVisual: async (seq) => {
          const row = await assets.bySeq(seq);
          if (!row || row.kind === 'video') return null;
          const a = await analyzeImage(await pixelsOf(row), { name: row.name, prompt: null, kind: row.kind }, null, undefined, d.images);
          return a.visual;
        },
        log,
      }),
    ),
    async refresh(seq) {
      // enrichment_status shows the re-run (pending → running → done) like a fresh import
      try {
        await enrichment.setAssetStatus(seq, 'pending');
        await jobs.enqueue(seq, 'analyze');
        runner.kick();
      } catch (err) {
        log.error({ err, asset_seq: seq }, 'could not queue re-enrichment after a metadata change');
      }
    },
    async close() {
      await settledSetup();
      await runner.close();
      await d.ocr?.close();
      await d.imageModel?.close();
    },
  };
}
