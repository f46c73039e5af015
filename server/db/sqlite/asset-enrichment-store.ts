import type { Database } from 'better-sqlite3';
import { createAssetEnrichmentQueries } from './asset-enrichment.ts';
import type { AssetEnrichmentStore, EnrichmentRow } from '../ports/asset-enrichment-store.ts';

/** The facts columns of the port's `EnrichmentRow` (the SQLite row also holds `updated_at`). */
const factsOf = (r: EnrichmentRow): EnrichmentRow => ({
  asset_seq: r.asset_seq,
  colors: r.colors,
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
 * The SQLite `AssetEnrichmentStore`: an adapter over the synchronous queries of
 * server/db/sqlite/asset-enrichment.ts (tables of migrations 0001, 0003, 0007). better-sqlite3 is synchronous:
 * each method does its work before it returns its promise.
 */
export function createSqliteAssetEnrichmentStore(db: Database): AssetEnrichmentStore {
  const q = createAssetEnrichmentQueries(db);
  return {
    setAssetStatus: async (seq, status) => q.setAssetStatus(seq, status),
    analyzedSeqs: async () => ascending(q.analyzedSeqs()),
    imageSeqs: async () => ascending(q.imageSeqs()),
    facts: async (seq) => {
      const r = q.facts(seq);
      return r ? factsOf(r) : undefined;
    },
    writeAnalysis: async (seq, a, lease) => q.writeAnalysis(seq, a, lease),
    setTextModel: async (seq, modelId) => q.setTextModel(seq, modelId),
    setVisualModel: async (seq, modelId) => q.setVisualModel(seq, modelId),
  };
}
