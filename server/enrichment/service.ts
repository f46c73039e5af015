import type { AssetQueries, AssetRow } from '../db/assets.ts';
import type { EnrichmentQueries, JobRow } from '../db/enrichment-jobs.ts';
import type { SpaceRow, VectorQueries } from '../db/vectors.ts';
import { embeddingText } from '../domain/alt-text.ts';
import { VISUAL_DIMENSIONS, VISUAL_MODEL_ID } from '../domain/colour.ts';
import type { AssetStoredHook } from '../library/deps.ts';
import type { AssetVectorSearch } from '../library/search.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { analyzeImage } from './analyze.ts';
import type { ImageCaptioner } from '../providers/vision-http.ts';
import type { OcrEngine } from './ocr.ts';
import { createJobRunner, type JobOutcome } from './queue.ts';
import { createAssetVectorSearch } from './vector-search.ts';

/** Everything enrichment needs, built in the composition root. */
export interface EnrichmentDeps {
  assets: AssetQueries;
  jobs: EnrichmentQueries;
  vectors: VectorQueries;
  blobs: BlobStore;
  embedder: TextEmbedder | null;
  /** null = OCR disabled */
  ocr: OcrEngine | null;
  /** vision model for machine alt text; null = heuristic alt text only */
  captioner: ImageCaptioner | null;
  concurrency: number;
  /** first retry delay of a failed job, ms */
  retryBaseMs: number;
  /** lowest cosine similarity a semantic hit needs to be listed */
  minSemanticSimilarity: number;
  log: Logger;
}

/** The running enrichment module. */
export interface Enrichment {
  /** onAssetStored hook: queue analysis of a new asset. */
  hook: AssetStoredHook;
  /** KNN implementation for `searchAssets`. */
  vectors: AssetVectorSearch;
  /** Queue re-analysis and re-embedding of one asset (after a metadata change). */
  refresh(seq: number): void;
  close(): Promise<void>;
}

/** Auto tags left out of the embedding text (still shown and lexically searchable). */
const DESCRIPTIVE_ONLY_TAGS = new Set(['red', 'orange', 'yellow', 'olive', 'green', 'teal', 'blue', 'purple', 'pink', 'brown', 'beige', 'black', 'white', 'grey']);
/** Tesseract page confidence from which OCR text joins the embedding text. */
const OCR_EMBED_MIN_CONFIDENCE = 75;

function jsonList(text: string | null): string[] {
  if (!text) return [];
  const v: unknown = JSON.parse(text);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
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
  const { assets, jobs, vectors, log } = d;

  const visualSpace = setupSpace('asset_visual', VISUAL_MODEL_ID, VISUAL_DIMENSIONS, 'analyze');
  let textSpace: SpaceRow | null = d.embedder ? setupSpace('asset_text', d.embedder.modelId, d.embedder.dimensions, 'embed_text') : null;

  /** Find or create the space of a model; a new space over existing assets is built in the background. */
  function setupSpace(purpose: SpaceRow['purpose'], modelId: string, dims: number, job: 'analyze' | 'embed_text'): SpaceRow {
    const live = vectors.liveSpaces(purpose);
    let space = live.find((s) => s.model_id === modelId && s.dimensions === dims);
    if (!space) {
      const existing = job === 'analyze' ? jobs.imageSeqs() : jobs.analyzedSeqs();
      space = vectors.ensureSpace(purpose, modelId, dims, existing.length > 0 ? 'building' : 'ready');
      if (existing.length > 0) {
        log.info({ purpose, model: modelId, assets: existing.length }, 'vector model changed: re-embedding in the background');
        jobs.enqueueMany(existing, job);
      }
    }
    if (space.status === 'building' && jobs.pendingKind(job) === 0) space = promote(space);
    else if (space.status === 'ready') for (const s of live) if (s.id !== space.id) vectors.retire(s);
    return space;
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
    if (row.enrichment_status === 'pending') jobs.setAssetStatus(row.seq, 'running');
    const bytes = await d.blobs.get(row.sha256);
    signal.throwIfAborted();
    const userAlt = jsonList(row.user_fields).includes('alt_text');
    const a = await analyzeImage(bytes, { name: row.name, prompt: promptOf(row), kind: row.kind, wantCaption: !userAlt }, d.ocr, d.captioner ? { captioner: d.captioner, log, signal } : undefined);
    signal.throwIfAborted();
    if (!sameAsset(row)) return 'skipped'; // deleted while it was analysed
    jobs.writeAnalysis(row.seq, {
      colorsJson: JSON.stringify(a.colours),
      orientation: a.orientation,
      ocrText: a.ocrText,
      ocrConfidence: a.ocrConfidence,
      autoTags: a.autoTags,
      machineAltText: a.machineAltText,
      caption: a.caption,
      captionModelId: a.captionModelId,
    });
    vectors.put(visualSpace, row.seq, row.workspace_id, a.visual, row);
    jobs.setVisualModel(row.seq, VISUAL_MODEL_ID);
    if (d.embedder) jobs.enqueue(row.seq, 'embed_text');
    return 'success';
  };

  const embedText = async (job: JobRow, signal: AbortSignal): Promise<JobOutcome> => {
    const row = assets.bySeq(job.asset_seq);
    if (!row || !d.embedder || !textSpace) return 'skipped';
    const userFields = new Set(jsonList(row.user_fields));
    const facts = jobs.facts(row.seq);
    const text = embeddingText({
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
    const [v] = await d.embedder.embed([text], signal);
    if (!v) throw new Error('embedder returned no vector');
    if (!sameAsset(row)) return 'skipped'; // deleted while it was embedded
    if (v.some((x) => x !== 0)) vectors.put(textSpace, row.seq, row.workspace_id, v, row);
    jobs.setTextModel(row.seq, d.embedder.modelId);
    return 'success';
  };

  const runner = createJobRunner({
    jobs,
    handlers: { analyze, embed_text: embedText },
    concurrency: d.concurrency,
    retryBaseMs: d.retryBaseMs,
    log,
    onSettled(job, state) {
      if (state === 'queued') return;
      if (jobs.pendingOf(job.asset_seq) === 0) {
        const row = assets.bySeq(job.asset_seq);
        if (row) jobs.setAssetStatus(row.seq, row.kind === 'video' ? 'skipped' : jobs.failedOf(row.seq) > 0 ? 'failed' : 'done');
      }
      if (job.kind === 'embed_text' && textSpace?.status === 'building' && jobs.pendingKind('embed_text') === 0) textSpace = promote(textSpace);
      if (job.kind === 'analyze' && visualSpace.status === 'building' && jobs.pendingKind('analyze') === 0) Object.assign(visualSpace, promote(visualSpace));
    },
  });
  runner.start();

  return {
    hook(asset) {
      jobs.enqueue(asset.seq, 'analyze');
      runner.kick();
    },
    vectors: createAssetVectorSearch({
      vectors,
      embedder: d.embedder,
      textSpace: () => textSpace,
      visualSpace: () => visualSpace,
      minSemanticSimilarity: d.minSemanticSimilarity,
      computeVisual: async (seq) => {
        const row = assets.bySeq(seq);
        if (!row || row.kind === 'video') return null;
        const a = await analyzeImage(await d.blobs.get(row.sha256), { name: row.name, prompt: null, kind: row.kind }, null);
        return a.visual;
      },
      log,
    }),
    refresh(seq) {
      // enrichment_status shows the re-run (pending → running → done) like a fresh import
      jobs.setAssetStatus(seq, 'pending');
      jobs.enqueue(seq, 'analyze');
      runner.kick();
    },
    async close() {
      await runner.close();
      await d.ocr?.close();
    },
  };
}
