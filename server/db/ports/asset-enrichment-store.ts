import type { AssetRow } from './asset-store.ts';
import type { JobLease } from './job-queue.ts';

/** A dominant colour of an image: the mean sRGB hex (`#rrggbb`) of its pixels of that colour name and their share of the image (0–1). */
export interface EnrichmentColour {
  hex: string;
  name: string;
  share: number;
}

/** Machine-derived facts of one asset (`asset_enrichment`). */
export interface EnrichmentRow {
  asset_seq: number;
  /** dominant colours, largest share first ([] when none was found) */
  colors: EnrichmentColour[];
  orientation: 'landscape' | 'portrait' | 'square' | null;
  ocr_confidence: number | null;
  machine_alt_text: string | null;
  text_model_id: string | null;
  visual_model_id: string | null;
  caption: string | null;
  caption_model_id: string | null;
}

/** What the analyze job writes; user-authored fields are protected by the SQL itself. */
export interface AnalysisWrite {
  /** dominant colours, largest share first */
  colors: EnrichmentColour[];
  orientation: EnrichmentRow['orientation'];
  ocrText: string | null;
  ocrConfidence: number | null;
  autoTags: string[];
  machineAltText: string | null;
  caption: string | null;
  captionModelId: string | null;
}

/**
 * Port: what background enrichment writes about an asset — its `enrichment_status`, the machine-derived
 * columns of the asset row (`ocr_text`, `auto_tags`, and `alt_text` unless the user wrote it) and the
 * facts row (`asset_enrichment`: colours, orientation, OCR confidence, machine alt text, caption, the
 * models of the stored vectors). Methods take a seq the caller already verified (the job queue holds
 * seqs, not scopes); a seq whose asset is gone changes nothing. User-authored metadata is never
 * overwritten: `alt_text` is written only when `user_fields` does not list it, whatever the backend.
 * Rows are plain shapes, the same on every backend (`colors` an array, `ocr_confidence` 0–100 or null);
 * each adapter parses its own columns.
 * Implementations: SQLite (server/db/sqlite/asset-enrichment.ts) and
 * PostgreSQL (server/db/postgres/asset-enrichment.ts); both pass
 * server/db/contract/asset-enrichment-store-contract.ts.
 */
export interface AssetEnrichmentStore {
  /** Set an asset's `enrichment_status` (pending → running → done | failed | skipped). */
  setAssetStatus(seq: number, status: AssetRow['enrichment_status']): Promise<void>;
  /** Seqs of every asset (all scopes) with a facts row, ascending: the assets a new text model re-embeds. */
  analyzedSeqs(): Promise<number[]>;
  /** Seqs of every asset (all scopes) that is not a video, ascending: the assets a new visual model re-analyses. */
  imageSeqs(): Promise<number[]>;
  /** The facts row of an asset, or undefined before its first analysis. */
  facts(seq: number): Promise<EnrichmentRow | undefined>;
  /**
   * Store an analysis in one transaction: the facts row (inserted or replaced; the vector model ids are
   * kept) and the asset's `ocr_text`, `auto_tags` and — unless user-authored — `alt_text` (set to
   * `machineAltText`). With `lease`, only while that job lease is still held (live, same owner) by the
   * database's clock, checked in the same transaction: a run whose lease was lost never writes last.
   * @returns false (nothing written) when the asset no longer exists
   * @throws JobLeaseLostError (nothing written) when `lease` is no longer held
   */
  writeAnalysis(seq: number, a: AnalysisWrite, lease?: JobLease): Promise<boolean>;
  /** Record the model of the asset's stored text vector (null: none); needs a facts row, else nothing happens. */
  setTextModel(seq: number, modelId: string | null): Promise<void>;
  /** Record the model of the asset's stored visual vector (null: none); needs a facts row, else nothing happens. */
  setVisualModel(seq: number, modelId: string | null): Promise<void>;
}
