import type { AssetQueries, AssetRow } from '../db/assets.ts';
import type { AssetEnrichmentQueries } from '../db/asset-enrichment.ts';
import type { JobQueue, JobRow } from '../db/ports/job-queue.ts';
import type { CalibrationQueries } from '../db/vector-calibrations.ts';
import type { SpaceRow, VectorQueries } from '../db/vectors.ts';
import type { Thesaurus } from '../domain/concepts.ts';
import { embeddingText, fallbackEmbeddingText, nameWords } from '../domain/alt-text.ts';
import { broaderWords } from '../domain/concepts.ts';
import { VISUAL_DIMENSIONS, VISUAL_MODEL_ID } from '../domain/colour.ts';
import type { AssetStoredHook } from '../library/deps.ts';
import type { AssetVectorSearch } from '../library/search.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { analyzeImage, type ImageRunner } from './analyze.ts';
import type { ImageCaptioner } from '../providers/vision-http.ts';
import type { OcrEngine } from './ocr.ts';
import { createJobRunner, type JobOutcome } from './queue.ts';
import { createAssetVectorSearch } from './vector-search.ts';
import type { TestHooks } from '../test-hooks.ts';

/** Everything enrichment needs, built in the composition root. */
export interface EnrichmentDeps {
  assets: AssetQueries;
  /** the durable job queue (SQLite or PostgreSQL) */
  jobs: JobQueue;
  /** enrichment columns and facts of the assets (SQLite, with the asset store) */
  enrichment: AssetEnrichmentQueries;
  vectors: VectorQueries;
  blobs: BlobStore;
  embedder: TextEmbedder | null;
  /** null = OCR disabled */
  ocr: OcrEngine | null;
  /** vision model for machine alt text; null = heuristic alt text only */
  captioner: ImageCaptioner | null;
  /** where image decodes run (the server's image pool at background priority); default: at once */
  images?: ImageRunner | undefined;
  concurrency: number;
  /** first retry delay of a failed job, ms */
  retryBaseMs: number;
  /** stored null models of the vector spaces (calibrated acceptance) */
  calibrations: CalibrationQueries;
  /** family-wise false-match rate of semantic and visual acceptance (domain/calibration.ts) */
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
const DESCRIPTIVE_ONLY_TAGS = new Set([
  'red',
  'orange',
  'yellow',
  'olive',
  'green',
  'teal',
  'blue',
  'purple',
  'pink',
  'brown',
  'beige',
  'black',
  'white',
  'grey',
]);
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

/**
 * Asynchronous enrichment (spec §2 "Imported asset", §3): after import an `analyze` job computes OCR
 * text, dominant colours, orientation, auto tags, machine alt text (only stored as `alt_text` when
 * the user gave none) and the visual vector; then an `embed_text` job embeds the asset's text with
 * the configured embedder. Jobs are durable and idempotent (see queue.ts). A change of text model
 * creates a new vector space that is filled in the background; until it is complete semantic search
 * reports itself unavailable (search degrades to lexical) instead of mixing spaces.
 */
export function createEnrichment(d: EnrichmentDeps): Enrichment {
  const { assets, jobs, enrichment, vectors, log } = d;

  const visual = setupSpace('asset_visual', VISUAL_MODEL_ID, VISUAL_DIMENSIONS, 'analyze');
  const visualSpace = visual.space;
  const text = d.embedder ? setupSpace('asset_text', d.embedder.modelId, d.embedder.dimensions, 'embed_text') : null;
  let textSpace: SpaceRow | null = text?.space ?? null;
  // The queue half of the setup: backfill jobs of a new space, and a space whose build finished while no
  // process ran is promoted. Awaited by start and close; search sees the promotion once it resolves.
  const ready = (async () => {
    if (visual.backfill.length) await jobs.enqueueMany(visual.backfill, 'analyze');
    if (text?.backfill.length) await jobs.enqueueMany(text.backfill, 'embed_text');
    if (visualSpace.status === 'building' && (await jobs.pendingKind('analyze')) === 0) Object.assign(visualSpace, promote(visualSpace));
    if (textSpace?.status === 'building' && (await jobs.pendingKind('embed_text')) === 0) textSpace = promote(textSpace);
  })();
  ready.catch((err: unknown) => log.error({ err }, 'enrichment setup failed: vector spaces were not backfilled'));

  /**
   * Find or create the space of a model; a new space over existing assets is built in the background
   * (`backfill`: the assets to queue for it). A ready space retires the other live ones of its purpose.
   */
  function setupSpace(
    purpose: SpaceRow['purpose'],
    modelId: string,
    dims: number,
    job: 'analyze' | 'embed_text',
  ): { space: SpaceRow; backfill: number[] } {
    const live = vectors.liveSpaces(purpose);
    const space = live.find((s) => s.model_id === modelId && s.dimensions === dims);
    if (space) {
      if (space.status === 'ready') for (const s of live) if (s.id !== space.id) vectors.retire(s);
      return { space, backfill: [] };
    }
    const existing = job === 'analyze' ? enrichment.imageSeqs() : enrichment.analyzedSeqs();
    const created = vectors.ensureSpace(purpose, modelId, dims, existing.length > 0 ? 'building' : 'ready');
    if (existing.length > 0)
      log.info({ purpose, model: modelId, assets: existing.length }, 'vector model changed: re-embedding in the background');
    else for (const s of live) if (s.id !== created.id) vectors.retire(s);
    return { space: created, backfill: existing };
  }

  function promote(space: SpaceRow): SpaceRow {
    vectors.setStatus(space, 'ready');
    for (const s of vectors.liveSpaces(space.purpose)) if (s.id !== space.id) vectors.retire(s);
    log.info({ purpose: space.purpose, model: space.model_id }, 'vector space ready');
    return { ...space, status: 'ready' };
  }

  /** Whether the row still exists as the same asset (rows can be deleted while a job awaits). */
  const sameAsset = (row: AssetRow): boolean => assets.bySeq(row.seq)?.id === row.id;

  const analyze = async (job: JobRow, signal: AbortSignal): Promise<JobOutcome> => {
    const row = assets.bySeq(job.asset_seq);
    if (!row) return 'skipped';
    if (row.kind === 'video') return 'skipped';
    if (row.enrichment_status === 'pending') enrichment.setAssetStatus(row.seq, 'running');
    const bytes = await d.blobs.get(row.sha256);
    signal.throwIfAborted();
    const userAlt = jsonList(row.user_fields).includes('alt_text');
    const a = await analyzeImage(
      bytes,
      { name: row.name, prompt: promptOf(row), kind: row.kind, wantCaption: !userAlt },
      d.ocr,
      d.captioner ? { captioner: d.captioner, log, signal } : undefined,
      d.images,
    );
    signal.throwIfAborted();
    await d.testHooks?.pause('enrichment-analyze');
    if (!sameAsset(row)) return 'skipped'; // deleted while it was analysed
    enrichment.writeAnalysis(row.seq, {
      colorsJson: JSON.stringify(a.colours),
      orientation: a.orientation,
      ocrText: a.ocrText,
      ocrConfidence: a.ocrConfidence,
      autoTags: a.autoTags,
      machineAltText: a.machineAltText,
      caption: a.caption,
      captionModelId: a.captionModelId,
    });
    // vec0 metadata (kind, category, subtype) from the row as it is now, not as it was when the job started
    vectors.put(visualSpace, row.seq, row.workspace_id, a.visual, assets.bySeq(row.seq) ?? row);
    enrichment.setVisualModel(row.seq, VISUAL_MODEL_ID);
    if (d.embedder) await jobs.enqueue(row.seq, 'embed_text');
    return 'success';
  };

  const embedText = async (job: JobRow, signal: AbortSignal): Promise<JobOutcome> => {
    const row = assets.bySeq(job.asset_seq);
    if (!row || !d.embedder || !textSpace) return 'skipped';
    const userFields = new Set(jsonList(row.user_fields));
    const facts = enrichment.facts(row.seq);
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
    if (!sameAsset(row)) return 'skipped'; // deleted while it was embedded
    if (v.some((x) => x !== 0)) vectors.put(textSpace, row.seq, row.workspace_id, v, assets.bySeq(row.seq) ?? row);
    enrichment.setTextModel(row.seq, d.embedder.modelId);
    return 'success';
  };

  const runner = createJobRunner({
    jobs,
    handlers: { analyze, embed_text: embedText },
    concurrency: d.concurrency,
    retryBaseMs: d.retryBaseMs,
    log,
    async onSettled(job, state) {
      if (state === 'queued') return;
      if ((await jobs.pendingOf(job.asset_seq)) === 0) {
        const failed = (await jobs.failedOf(job.asset_seq)) > 0;
        const row = assets.bySeq(job.asset_seq);
        if (row) enrichment.setAssetStatus(row.seq, row.kind === 'video' ? 'skipped' : failed ? 'failed' : 'done');
      }
      if (job.kind === 'embed_text' && textSpace?.status === 'building' && (await jobs.pendingKind('embed_text')) === 0)
        textSpace = promote(textSpace);
      if (job.kind === 'analyze' && visualSpace.status === 'building' && (await jobs.pendingKind('analyze')) === 0)
        Object.assign(visualSpace, promote(visualSpace));
    },
  });

  return {
    start: () => void ready.then(() => runner.start()).catch(() => undefined),
    async hook(asset) {
      await jobs.enqueue(asset.seq, 'analyze');
      runner.kick();
    },
    vectors: createAssetVectorSearch({
      vectors,
      assets,
      calibrations: d.calibrations,
      thesaurus: d.thesaurus,
      alpha: d.matchAlpha,
      embedder: d.embedder,
      textSpace: () => textSpace,
      visualSpace: () => visualSpace,
      computeVisual: async (seq) => {
        const row = assets.bySeq(seq);
        if (!row || row.kind === 'video') return null;
        const a = await analyzeImage(
          await d.blobs.get(row.sha256),
          { name: row.name, prompt: null, kind: row.kind },
          null,
          undefined,
          d.images,
        );
        return a.visual;
      },
      log,
    }),
    async refresh(seq) {
      // enrichment_status shows the re-run (pending → running → done) like a fresh import
      enrichment.setAssetStatus(seq, 'pending');
      try {
        await jobs.enqueue(seq, 'analyze');
        runner.kick();
      } catch (err) {
        log.error({ err, asset_seq: seq }, 'could not queue re-enrichment after a metadata change');
      }
    },
    async close() {
      await ready.catch(() => undefined);
      await runner.close();
      await d.ocr?.close();
    },
  };
}
