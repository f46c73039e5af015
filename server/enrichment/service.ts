import type { AssetEnrichmentStore } from '../db/ports/asset-enrichment-store.ts';
import type { AssetRow, AssetStore } from '../db/ports/asset-store.ts';
import type { CalibrationStore } from '../db/ports/calibration-store.ts';
import type { JobLease, JobQueue, JobRow } from '../db/ports/job-queue.ts';
import { VectorSpaceRetiredError, type SpaceRow, type VectorStore } from '../db/ports/vector-store.ts';
import type { Scope } from '../domain/scope.ts';
import type { Thesaurus } from '../domain/search/concepts.ts';
import { embeddingText, fallbackEmbeddingText, nameWords } from '../domain/media/alt-text.ts';
import { broaderWords } from '../domain/search/concepts.ts';
import { COLOUR_NAMES, VISUAL_DIMENSIONS, VISUAL_MODEL_ID } from '../domain/media/colour.ts';
import type { AssetStoredHook } from '../assets/deps.ts';
import type { AssetVectorSearch } from '../assets/search.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { analyzeImage, type ImageRunner } from './analyze.ts';
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

/** Auto tags left out of the embedding text (still shown and lexically searchable). */
const DESCRIPTIVE_ONLY_TAGS = COLOUR_NAMES;
/** Tesseract page confidence from which OCR text joins the embedding text. */
const OCR_EMBED_MIN_CONFIDENCE = 75;

function jsonList(text: string | null): string[] {
  if (!text) return [];
  const v: unknown = JSON.parse(text);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Colour names of the `asset_enrichment.colors` JSON, largest share first. */
function colourNames(json: string | null): string[] {
  if (!json) return [];
  const v: unknown = JSON.parse(json);
  return Array.isArray(v)
    ? [...new Set(v.map((c) => (c as { name?: unknown }).name).filter((n): n is string => typeof n === 'string'))].slice(0, 3)
    : [];
}

function promptOf(row: AssetRow): string | null {
  if (!row.provenance) return null;
  const p = JSON.parse(row.provenance) as { prompt?: unknown };
  return typeof p.prompt === 'string' ? p.prompt : null;
}

const scopeOf = (row: AssetRow): Scope => ({ tenantId: row.tenant_id, workspaceId: row.workspace_id });

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

  let visualSpace: SpaceRow | null = null;
  let textSpace: SpaceRow | null = null;
  let imageSpace: SpaceRow | null = null;
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
    const visual = await setupSpace('asset_visual', VISUAL_MODEL_ID, VISUAL_DIMENSIONS, 'analyze');
    visualSpace = visual.space;
    const text = d.embedder ? await setupSpace('asset_text', d.embedder.modelId, d.embedder.dimensions, 'embed_text') : null;
    textSpace = text?.space ?? null;
    if (visual.backfill.length) await jobs.enqueueMany(visual.backfill, 'analyze');
    if (text?.backfill.length) await jobs.enqueueMany(text.backfill, 'embed_text');
    if (visualSpace.status === 'building' && (await jobs.pendingKind('analyze')) === 0) visualSpace = await promote(visualSpace);
    if (textSpace?.status === 'building' && (await jobs.pendingKind('embed_text')) === 0) textSpace = await promote(textSpace);
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
      const image = await setupSpace('asset_image', model.modelId, model.dimensions, 'embed_image');
      imageSpace = image.space;
      if (image.backfill.length) {
        await jobs.enqueueMany(image.backfill, 'embed_image');
        runner.kick();
      }
      if (imageSpace.status === 'building' && (await jobs.pendingKind('embed_image')) === 0) imageSpace = await promote(imageSpace);
      return imageSpace !== null;
    })().catch((err: unknown) => {
      log.error({ err }, 'image model space setup failed: image embeddings are off until a restart');
      return false;
    }));

  /**
   * Find or create the space of a model; a new space over existing assets is built in the background
   * (`backfill`: the assets to queue for it). A ready space retires the other live ones of its purpose.
   */
  async function setupSpace(
    purpose: SpaceRow['purpose'],
    modelId: string,
    dims: number,
    job: 'analyze' | 'embed_text' | 'embed_image',
  ): Promise<{ space: SpaceRow; backfill: number[] }> {
    const live = await vectors.liveSpaces(purpose);
    const space = live.find((s) => s.model_id === modelId && s.dimensions === dims);
    if (space) {
      if (space.status === 'ready') for (const s of live) if (s.id !== space.id) await vectors.retire(s);
      return { space, backfill: [] };
    }
    const existing = job === 'embed_text' ? await enrichment.analyzedSeqs() : await enrichment.imageSeqs();
    const created = await vectors.ensureSpace(purpose, modelId, dims, existing.length > 0 ? 'building' : 'ready');
    if (existing.length > 0)
      log.info({ purpose, model: modelId, assets: existing.length }, 'vector model changed: re-embedding in the background');
    else for (const s of live) if (s.id !== created.id) await vectors.retire(s);
    return { space: created, backfill: existing };
  }

  /**
   * Make a built space ready and retire the other live spaces of its purpose.
   * @returns the space as ready, or null when another process retired it meanwhile (see `retiredElsewhere`)
   */
  async function promote(space: SpaceRow): Promise<SpaceRow | null> {
    try {
      await vectors.setStatus(space, 'ready');
    } catch (err) {
      if (err instanceof VectorSpaceRetiredError) return retiredElsewhere(space);
      throw err;
    }
    for (const s of await vectors.liveSpaces(space.purpose)) if (s.id !== space.id) await vectors.retire(s);
    log.info({ purpose: space.purpose, model: space.model_id }, 'vector space ready');
    return { ...space, status: 'ready' };
  }

  /**
   * This process's space of a purpose was retired by another process (one configured with another
   * model made its own space ready): its vectors are gone and this process's model is no longer the
   * live one, so it stops storing and searching vectors of that purpose (jobs still succeed; semantic or
   * similar search degrades to lexical) rather than fight over the live space. A restart with the live
   * model's configuration, or with this one (which revives the space and rebuilds it), settles it.
   * @returns null, the process's new space of that purpose
   */
  function retiredElsewhere(space: SpaceRow): null {
    log.warn(
      { purpose: space.purpose, model: space.model_id },
      "vector space retired by another process (another model is live): this process's vectors of that purpose stop until a restart",
    );
    if (space.purpose === 'asset_text' && textSpace?.id === space.id) textSpace = null;
    if (space.purpose === 'asset_visual' && visualSpace?.id === space.id) visualSpace = null;
    if (space.purpose === 'asset_image' && imageSpace?.id === space.id) imageSpace = null;
    return null;
  }

  /**
   * A space of this process as the store has it now. A space seen `building` is read again (one small
   * query per search while it builds): another process on the same model may have run the last backfill
   * job and promoted it, and this process would otherwise keep searching without it until a job of its
   * own or a restart. A space no longer live is left as it was (its puts meet the retire).
   */
  async function current(space: SpaceRow | null): Promise<SpaceRow | null> {
    if (!space || space.status !== 'building') return space;
    return (await vectors.liveSpaces(space.purpose)).find((s) => s.id === space.id) ?? space;
  }

  /**
   * Put an asset's vector into this process's space of a purpose.
   * @returns 'stored'; 'no-asset' when the asset left its scope; 'retired' when another process retired
   *   the space (see `retiredElsewhere`), nothing stored
   */
  async function store(space: SpaceRow, row: AssetRow, v: Float32Array): Promise<'stored' | 'no-asset' | 'retired'> {
    try {
      return (await vectors.put(scopeOf(row), space, row.seq, v)) ? 'stored' : 'no-asset';
    } catch (err) {
      if (!(err instanceof VectorSpaceRetiredError)) throw err;
      retiredElsewhere(space);
      return 'retired';
    }
  }

  /** Whether the row still exists as the same asset (rows can be deleted while a job awaits). */
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
  const sameAsset = async (row: AssetRow): Promise<boolean> => (await assets.bySeq(row.seq))?.id === row.id;

  // Handlers check `signal` before each write: it aborts when the runner closes or the job's lease was
  // lost to another runner (queue.ts), and the analysis itself is written only under the lease.
  const analyze = async (job: JobRow, signal: AbortSignal, lease: JobLease): Promise<JobOutcome> => {
    const row = await assets.bySeq(job.asset_seq);
    if (!row) return 'skipped';
    if (row.kind === 'video') return 'skipped';
    if (row.enrichment_status === 'pending') await enrichment.setAssetStatus(row.seq, 'running');
    const bytes = await pixelsOf(row);
    signal.throwIfAborted();
    const userAlt = jsonList(row.user_fields).includes('alt_text');
    const a = await analyzeImage(
      bytes,
      { name: row.name, prompt: promptOf(row), kind: row.kind, wantCaption: !userAlt },
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
        colorsJson: JSON.stringify(a.colours),
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
    if (visualSpace && (await store(visualSpace, row, a.visual)) === 'stored') await enrichment.setVisualModel(row.seq, VISUAL_MODEL_ID);
    // The follow-up jobs are due as of this job's own due time, so they come before the analyses queued
    // after it (the queue claims oldest due first): each asset is done (searchable by meaning, counted out
    // of `request.indexing`) right after its analysis, not after the whole batch has been analysed.
    if (d.embedder && textSpace) await jobs.enqueue(row.seq, 'embed_text', job.run_after);
    if (d.imageModel && d.imageModel.state().status !== 'unavailable') await jobs.enqueue(row.seq, 'embed_image', job.run_after);
    return 'success';
  };

  /** The image–text model's embedding of an image asset, on the image pool at the enrichment's priority. */
  const embedImage = async (job: JobRow, signal: AbortSignal): Promise<JobOutcome> => {
    if (!(await imageReady())) return 'skipped';
    const space = imageSpace;
    const model = d.imageModel?.state().model;
    const row = await assets.bySeq(job.asset_seq);
    if (!row || row.kind === 'video' || !space || !model) return 'skipped';
    const v = await embedImageBytes(model, await pixelsOf(row), d.images ?? { run: (op) => op() });
    signal.throwIfAborted();
    if (!(await sameAsset(row))) return 'skipped'; // deleted while it was embedded
    signal.throwIfAborted();
    await store(space, row, v);
    return 'success';
  };

  const embedText = async (job: JobRow, signal: AbortSignal): Promise<JobOutcome> => {
    const row = await assets.bySeq(job.asset_seq);
    const space = textSpace;
    if (!row || !d.embedder || !space) return 'skipped';
    const userFields = new Set(jsonList(row.user_fields));
    const facts = await enrichment.facts(row.seq);
    let text = embeddingText({
      name: row.name,
      // the user's words, else a vision model's caption (the heuristic alt text only restates other fields)
      userAltText: userFields.has('alt_text') ? row.alt_text : (facts?.caption ?? null),
      tags: jsonList(row.tags),
      purpose: row.purpose,
      // Photo OCR is mostly fragments ("JPA HOPADILLO BBH") that pull the mean vector off-topic; it stays
      // searchable lexically. Confident pages (documents, screenshots) are embedded.
      ocrText: (facts?.ocr_confidence ?? 0) >= OCR_EMBED_MIN_CONFIDENCE ? row.ocr_text : null,
      // Colour tags are on nearly every photo and would make all photos look alike.
      autoTags: jsonList(row.auto_tags).filter((t) => !DESCRIPTIVE_ONLY_TAGS.has(t)),
      prompt: promptOf(row),
    });
    // Every analysed asset gets a text vector: without any words (IMG_2682.heic, no metadata, no text
    // in the picture) or without any word the embedder knows, it is embedded from its kind, orientation
    // and colours instead.
    const fallback = fallbackEmbeddingText({ kind: row.kind, colours: colourNames(facts?.colors ?? null) });
    // With nothing but a file name ("prairie_falcon.jpg"), the name's nouns also bring their broader
    // WordNet words ("falcon", "hawk"), the general words queries use.
    const bare = !userFields.has('alt_text') && !facts?.caption && jsonList(row.tags).length === 0 && !row.purpose && !promptOf(row);
    const thesaurus = bare ? await d.thesaurus() : null;
    const broader = thesaurus ? broaderWords(thesaurus, nameWords(row.name).split(' ').filter(Boolean)) : [];
    if (broader.length) text = `${text}. ${broader.join(', ')}`;
    let [v] = await d.embedder.embed([text.trim() ? text : fallback], signal);
    if (v && !v.some((x) => x !== 0) && text.trim()) [v] = await d.embedder.embed([`${text}. ${fallback}`], signal);
    if (!v) throw new Error('embedder returned no vector');
    if (!(await sameAsset(row))) return 'skipped'; // deleted while it was embedded
    signal.throwIfAborted();
    // the space retired meanwhile: no text vector of this model is kept anywhere
    if (v.some((x) => x !== 0) && (await store(space, row, v)) === 'retired') return 'skipped';
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
      if (job.kind === 'embed_text' && textSpace?.status === 'building' && (await jobs.pendingKind('embed_text')) === 0)
        textSpace = await promote(textSpace);
      if (job.kind === 'analyze' && visualSpace?.status === 'building' && (await jobs.pendingKind('analyze')) === 0)
        visualSpace = await promote(visualSpace);
      if (job.kind === 'embed_image' && imageSpace?.status === 'building' && (await jobs.pendingKind('embed_image')) === 0)
        imageSpace = await promote(imageSpace);
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
              const seen = imageSpace;
              const now = await current(seen);
              if (imageSpace === seen) imageSpace = now;
              return imageSpace;
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
          const seen = textSpace;
          const now = await current(seen);
          // unless a promotion or retire of this process replaced it meanwhile
          if (textSpace === seen) textSpace = now;
          return textSpace;
        },
        visualSpace: async () => {
          await settledSetup();
          const seen = visualSpace;
          const now = await current(seen);
          if (visualSpace === seen) visualSpace = now;
          return visualSpace;
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
