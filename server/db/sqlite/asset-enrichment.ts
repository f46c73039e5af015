import type { Database } from 'better-sqlite3';
import { SQLITE_NOW_MS } from './enrichment-jobs.ts';
import { JobLeaseLostError } from '../ports/job-queue.ts';
import type { AssetEnrichmentStore, EnrichmentColour, EnrichmentRow } from '../ports/asset-enrichment-store.ts';

/** An `asset_enrichment` row as SQLite gives it: `colors` JSON text (the row also holds `updated_at`). */
type RawFacts = Omit<EnrichmentRow, 'colors'> & { colors: string };

/** The port's `EnrichmentRow` of a stored row: its facts columns, `colors` parsed. */
const factsOf = (r: RawFacts): EnrichmentRow => ({
  asset_seq: r.asset_seq,
  colors: JSON.parse(r.colors) as EnrichmentColour[],
  orientation: r.orientation,
  ocr_confidence: r.ocr_confidence,
  machine_alt_text: r.machine_alt_text,
  text_model_id: r.text_model_id,
  visual_model_id: r.visual_model_id,
  caption: r.caption,
  caption_model_id: r.caption_model_id,
});
const ascending = (xs: number[]): number[] => xs.sort((a, b) => a - b);

/**
 * The SQLite `AssetEnrichmentStore`: the enrichment columns of `assets` and the `asset_enrichment` facts
 * (tables of migrations 0001, 0003, 0007). They belong to the asset store and move with it; the job queue
 * is a port of its own (ports/job-queue.ts). Writes never touch user-authored metadata: `alt_text` is
 * only set when `user_fields` does not list it. better-sqlite3 is synchronous: each method does its work
 * before it returns its promise.
 */
export function createSqliteAssetEnrichmentStore(db: Database): AssetEnrichmentStore {
  const now = () => new Date().toISOString();
  const s = {
    setStatus: db.prepare(`UPDATE assets SET enrichment_status = ? WHERE seq = ?`),
    allAnalyzed: db.prepare(`SELECT e.asset_seq AS seq FROM asset_enrichment e JOIN assets a ON a.seq = e.asset_seq`),
    allSeqs: db.prepare(`SELECT seq FROM assets WHERE kind <> 'video'`),
    facts: db.prepare(`SELECT * FROM asset_enrichment WHERE asset_seq = ?`),
    upsertFacts: db.prepare(
      `INSERT INTO asset_enrichment (asset_seq, colors, orientation, ocr_confidence, machine_alt_text, caption, caption_model_id, updated_at)
       VALUES (@seq, @colors, @orientation, @ocr_confidence, @machine_alt_text, @caption, @caption_model_id, @now)
       ON CONFLICT (asset_seq) DO UPDATE SET colors = excluded.colors, orientation = excluded.orientation,
         ocr_confidence = excluded.ocr_confidence, machine_alt_text = excluded.machine_alt_text,
         caption = excluded.caption, caption_model_id = excluded.caption_model_id, updated_at = excluded.updated_at`,
    ),
    writeAsset: db.prepare(
      `UPDATE assets SET
         ocr_text = @ocr_text,
         auto_tags = @auto_tags,
         alt_text = CASE WHEN EXISTS (SELECT 1 FROM json_each(assets.user_fields) WHERE value = 'alt_text') THEN assets.alt_text ELSE @machine_alt_text END
       WHERE seq = @seq`,
    ),
    leaseHeld: db.prepare(
      `SELECT 1 AS held FROM enrichment_jobs WHERE id = ? AND lease_owner = ? AND state = 'running' AND lease_until >= ${SQLITE_NOW_MS}`,
    ),
    setModel: db.prepare(`UPDATE asset_enrichment SET text_model_id = ?, updated_at = ? WHERE asset_seq = ?`),
    setVisualModel: db.prepare(`UPDATE asset_enrichment SET visual_model_id = ?, updated_at = ? WHERE asset_seq = ?`),
  };

  return {
    setAssetStatus: async (seq, status) => void s.setStatus.run(status, seq),
    analyzedSeqs: async () => ascending((s.allAnalyzed.all() as { seq: number }[]).map((r) => r.seq)),
    imageSeqs: async () => ascending((s.allSeqs.all() as { seq: number }[]).map((r) => r.seq)),
    async facts(seq) {
      const r = s.facts.get(seq) as RawFacts | undefined;
      return r ? factsOf(r) : undefined;
    },
    async writeAnalysis(seq, a, lease) {
      return db
        .transaction(() => {
          if (lease && !s.leaseHeld.get(lease.jobId, lease.owner)) throw new JobLeaseLostError(lease);
          const asset = { seq, ocr_text: a.ocrText, auto_tags: JSON.stringify(a.autoTags), machine_alt_text: a.machineAltText };
          if (s.writeAsset.run(asset).changes === 0) return false;
          s.upsertFacts.run({
            seq,
            colors: JSON.stringify(a.colors),
            orientation: a.orientation,
            ocr_confidence: a.ocrConfidence,
            machine_alt_text: a.machineAltText,
            caption: a.caption,
            caption_model_id: a.captionModelId,
            now: now(),
          });
          return true;
        })
        .immediate();
    },
    setTextModel: async (seq, modelId) => void s.setModel.run(modelId, now(), seq),
    setVisualModel: async (seq, modelId) => void s.setVisualModel.run(modelId, now(), seq),
  };
}
