import type { AssetEnrichmentStore, EnrichmentColour, EnrichmentRow } from '../ports/asset-enrichment-store.ts';
import { JobLeaseLostError } from '../ports/job-queue.ts';
import { refreshAssetVectors } from './asset-lexicon.ts';
import { PG_NOW_MS } from './job-queue.ts';
import { inTransaction, type PgPool } from './pool.ts';

const FACT_COLUMNS =
  'asset_seq, colors, orientation, ocr_confidence, machine_alt_text, text_model_id, visual_model_id, caption, caption_model_id';
/** An `asset_enrichment` row as PostgreSQL gives it: `colors` JSON text. */
type RawFacts = Omit<EnrichmentRow, 'colors'> & { colors: string };

/**
 * The PostgreSQL `AssetEnrichmentStore`: the enrichment columns of `assets` and the `asset_enrichment`
 * facts rows (postgres/migrations/0003), `colors` kept as JSON text and parsed here. Writing `ocr_text`, `auto_tags` or `alt_text` rewrites the
 * asset's lexical vector in the same transaction and logs a search change through the triggers of
 * migration 0003, as the FTS5 triggers do on SQLite. `alt_text` is taken from the analysis only when the asset's `user_fields`
 * JSON does not list it (decided in the UPDATE itself, so a user's edit committed first always wins).
 * An analysis given its job's lease is written only while the lease is held (locked `FOR SHARE`).
 */
export function createPgAssetEnrichmentStore(pool: PgPool): AssetEnrichmentStore {
  const seqs = async (sql: string): Promise<number[]> => (await pool.query<{ seq: number }>(sql)).rows.map((r) => r.seq);
  return {
    async setAssetStatus(seq, status) {
      await pool.query('UPDATE assets SET enrichment_status = $1 WHERE seq = $2', [status, seq]);
    },
    analyzedSeqs: () => seqs('SELECT e.asset_seq AS seq FROM asset_enrichment e ORDER BY e.asset_seq'),
    imageSeqs: () => seqs(`SELECT seq FROM assets WHERE kind <> 'video' ORDER BY seq`),
    async facts(seq) {
      const r = (await pool.query<RawFacts>(`SELECT ${FACT_COLUMNS} FROM asset_enrichment WHERE asset_seq = $1`, [seq])).rows[0];
      return r && { ...r, colors: JSON.parse(r.colors) as EnrichmentColour[] };
    },
    writeAnalysis: (seq, a, lease) =>
      inTransaction(pool, async (c) => {
        if (lease) {
          // FOR SHARE: a takeover of the job (requeueExpired, claimDue) waits until this write commits
          const held = await c.query(
            `SELECT 1 FROM enrichment_jobs WHERE id = $1 AND lease_owner = $2 AND state = 'running' AND lease_until >= ${PG_NOW_MS} FOR SHARE`,
            [lease.jobId, lease.owner],
          );
          if ((held.rowCount ?? 0) === 0) throw new JobLeaseLostError(lease);
        }
        // the asset row first: its lock keeps a concurrent delete from orphaning the facts row
        const updated = await c.query(
          `UPDATE assets SET ocr_text = $2, auto_tags = $3,
             alt_text = CASE WHEN user_fields::jsonb ? 'alt_text' THEN alt_text ELSE $4 END
           WHERE seq = $1`,
          [seq, a.ocrText, JSON.stringify(a.autoTags), a.machineAltText],
        );
        if ((updated.rowCount ?? 0) === 0) return false;
        // committed with its vector: a null one (stale, migration 0010) would hide the asset from the
        // questions a search already under way asks after its one refresh of the scope
        await refreshAssetVectors(c, [seq]);
        await c.query(
          `INSERT INTO asset_enrichment (asset_seq, colors, orientation, ocr_confidence, machine_alt_text, caption, caption_model_id, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, now())
           ON CONFLICT (asset_seq) DO UPDATE SET colors = excluded.colors, orientation = excluded.orientation,
             ocr_confidence = excluded.ocr_confidence, machine_alt_text = excluded.machine_alt_text,
             caption = excluded.caption, caption_model_id = excluded.caption_model_id, updated_at = excluded.updated_at`,
          [seq, JSON.stringify(a.colors), a.orientation, a.ocrConfidence, a.machineAltText, a.caption, a.captionModelId],
        );
        return true;
      }),
    async setTextModel(seq, modelId) {
      await pool.query('UPDATE asset_enrichment SET text_model_id = $1, updated_at = now() WHERE asset_seq = $2', [modelId, seq]);
    },
    async setVisualModel(seq, modelId) {
      await pool.query('UPDATE asset_enrichment SET visual_model_id = $1, updated_at = now() WHERE asset_seq = $2', [modelId, seq]);
    },
  };
}
