/**
 * The vector spaces one process stores into and searches (service.ts): one per purpose (visual, text, image),
 * found or created for the configured model, built in the background when the model changed, promoted when
 * built, and given up when another process retires them. Only the enrichment module holds one.
 */
import type { AssetEnrichmentStore } from '../db/ports/asset-enrichment-store.ts';
import type { AssetRow } from '../db/ports/asset-store.ts';
import { VectorSpaceRetiredError, type SpacePurpose, type SpaceRow, type VectorStore } from '../db/ports/vector-store.ts';
import type { Logger } from '../log.ts';

/** The job that fills a space of each purpose. */
const FILLED_BY = { asset_visual: 'analyze', asset_text: 'embed_text', asset_image: 'embed_image' } as const;

export interface ProcessSpaces {
  /** This process's space of a purpose as last seen, or null (not set up, or retired by another process). */
  held(purpose: SpacePurpose): SpaceRow | null;
  /**
   * Find or create the space of a model and hold it; a new space over existing assets is built in the
   * background. A ready space retires the other live ones of its purpose.
   * @returns the assets to queue for the space's job (`backfill`), [] when nothing is to build
   */
  setUp(purpose: SpacePurpose, modelId: string, dims: number): Promise<{ space: SpaceRow; backfill: number[] }>;
  /**
   * Make the held space of a purpose ready when it is building and `pending()` (its job's queue) is 0, and
   * retire the other live spaces of its purpose. A space another process retired meanwhile is dropped.
   */
  promoteIfBuilt(purpose: SpacePurpose, pending: () => Promise<number>): Promise<void>;
  /**
   * The held space of a purpose as the store has it now. A space seen `building` is read again (one small
   * query per search while it builds): another process on the same model may have run the last backfill job
   * and promoted it, and this process would otherwise keep searching without it until a job of its own or a
   * restart. A space no longer live is left as it was (its puts meet the retire).
   */
  current(purpose: SpacePurpose): Promise<SpaceRow | null>;
  /**
   * Put an asset's vector into a space of this process.
   * @returns 'stored'; 'no-asset' when the asset left its scope; 'retired' when another process retired the
   *   space (it is dropped), nothing stored
   * @throws what the vector store throws, but for `VectorSpaceRetiredError`
   */
  store(space: SpaceRow, row: AssetRow, v: Float32Array): Promise<'stored' | 'no-asset' | 'retired'>;
}

/** The spaces of one process, over the vector store and the enrichment facts (which assets a new space needs). */
export function processSpaces(vectors: VectorStore, enrichment: AssetEnrichmentStore, log: Logger): ProcessSpaces {
  const held: Partial<Record<SpacePurpose, SpaceRow | null>> = {};

  /**
   * This process's space of a purpose was retired by another process (one configured with another model made
   * its own space ready): its vectors are gone and this process's model is no longer the live one, so it stops
   * storing and searching vectors of that purpose (jobs still succeed; semantic or similar search degrades to
   * lexical) rather than fight over the live space. A restart with the live model's configuration, or with
   * this one (which revives the space and rebuilds it), settles it.
   */
  const retiredElsewhere = (space: SpaceRow): null => {
    log.warn(
      { purpose: space.purpose, model: space.model_id },
      "vector space retired by another process (another model is live): this process's vectors of that purpose stop until a restart",
    );
    if (held[space.purpose]?.id === space.id) held[space.purpose] = null;
    return null;
  };

  const promote = async (space: SpaceRow): Promise<SpaceRow | null> => {
    try {
      await vectors.setStatus(space, 'ready');
    } catch (err) {
      if (err instanceof VectorSpaceRetiredError) return retiredElsewhere(space);
      throw err;
    }
    for (const s of await vectors.liveSpaces(space.purpose)) if (s.id !== space.id) await vectors.retire(s);
    log.info({ purpose: space.purpose, model: space.model_id }, 'vector space ready');
    return { ...space, status: 'ready' };
  };

  return {
    held: (purpose) => held[purpose] ?? null,
    async setUp(purpose, modelId, dims) {
      const live = await vectors.liveSpaces(purpose);
      const found = live.find((s) => s.model_id === modelId && s.dimensions === dims);
      if (found) {
        if (found.status === 'ready') for (const s of live) if (s.id !== found.id) await vectors.retire(s);
        held[purpose] = found;
        return { space: found, backfill: [] };
      }
      const existing = FILLED_BY[purpose] === 'embed_text' ? await enrichment.analyzedSeqs() : await enrichment.imageSeqs();
      const created = await vectors.ensureSpace(purpose, modelId, dims, existing.length > 0 ? 'building' : 'ready');
      if (existing.length > 0)
        log.info({ purpose, model: modelId, assets: existing.length }, 'vector model changed: re-embedding in the background');
      else for (const s of live) if (s.id !== created.id) await vectors.retire(s);
      held[purpose] = created;
      return { space: created, backfill: existing };
    },
    async promoteIfBuilt(purpose, pending) {
      const space = held[purpose];
      if (space?.status !== 'building' || (await pending()) !== 0) return;
      const promoted = await promote(space);
      // unless a retire of this process replaced it meanwhile
      if (held[purpose] === space) held[purpose] = promoted;
    },
    async current(purpose) {
      const seen = held[purpose] ?? null;
      if (!seen || seen.status !== 'building') return seen;
      const now = (await vectors.liveSpaces(seen.purpose)).find((s) => s.id === seen.id) ?? seen;
      // unless a promotion or retire of this process replaced it meanwhile
      if (held[purpose] === seen) held[purpose] = now;
      return held[purpose] ?? null;
    },
    async store(space, row, v) {
      try {
        return (await vectors.put({ tenantId: row.tenant_id, workspaceId: row.workspace_id }, space, row.seq, v)) ? 'stored' : 'no-asset';
      } catch (err) {
        if (!(err instanceof VectorSpaceRetiredError)) throw err;
        retiredElsewhere(space);
        return 'retired';
      }
    },
  };
}
