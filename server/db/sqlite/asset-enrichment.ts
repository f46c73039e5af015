import type { Database } from 'better-sqlite3';
import type { Scope } from '../../domain/scope.ts';
import type { AssetRow } from '../ports/asset-store.ts';
import { SQLITE_NOW_MS } from './enrichment-jobs.ts';
import { JobLeaseLostError, type JobLease } from '../ports/job-queue.ts';
import type { AnalysisWrite, EnrichmentRow } from '../ports/asset-enrichment-store.ts';

/**
 * The enrichment columns of `assets` and the `asset_enrichment` facts (SQLite, synchronous). They belong
 * to the asset store and move with it; the job queue is a port of its own (ports/job-queue.ts). Writes
 * never touch user-authored metadata: `alt_text` is only set when `user_fields` does not list it.
 */
export function createAssetEnrichmentQueries(db: Database) {
  const now = () => new Date().toISOString();
  const s = {
    counts: db.prepare(
      `SELECT a.enrichment_status AS status, count(*) AS n FROM assets a WHERE a.tenant_id = ? AND a.workspace_id = ? GROUP BY a.enrichment_status`,
    ),
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
    setAssetStatus: (seq: number, status: AssetRow['enrichment_status']) => void s.setStatus.run(status, seq),
    /** Count of assets per enrichment status in a workspace. */
    statusCounts(scope: Scope): Record<string, number> {
      const rows = s.counts.all(scope.tenantId, scope.workspaceId) as { status: string; n: number }[];
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    },
    /** Seqs of assets with an analysis (facts row). */
    analyzedSeqs: () => (s.allAnalyzed.all() as { seq: number }[]).map((r) => r.seq),
    /** Seqs of every asset that is not a video. */
    imageSeqs: () => (s.allSeqs.all() as { seq: number }[]).map((r) => r.seq),
    facts: (seq: number) => s.facts.get(seq) as EnrichmentRow | undefined,
    /**
     * Store an analysis: facts row plus OCR text, auto tags and (unless user-authored) alt text.
     * @returns false (nothing written) when the asset no longer exists
     * @throws JobLeaseLostError when `lease` is given and no longer held (checked under the write lock)
     */
    writeAnalysis(seq: number, a: AnalysisWrite, lease?: JobLease): boolean {
      return db
        .transaction(() => {
          if (lease && !s.leaseHeld.get(lease.jobId, lease.owner)) throw new JobLeaseLostError(lease);
          const asset = { seq, ocr_text: a.ocrText, auto_tags: JSON.stringify(a.autoTags), machine_alt_text: a.machineAltText };
          if (s.writeAsset.run(asset).changes === 0) return false;
          s.upsertFacts.run({
            seq,
            colors: a.colorsJson,
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
    setTextModel: (seq: number, modelId: string | null) => void s.setModel.run(modelId, now(), seq),
    setVisualModel: (seq: number, modelId: string | null) => void s.setVisualModel.run(modelId, now(), seq),
  };
}
export type AssetEnrichmentQueries = ReturnType<typeof createAssetEnrichmentQueries>;
