import sharp from 'sharp';
import { stemmer } from 'stemmer';
import type { ImageModelReport } from '../../shared/schemas/asset.ts';
import type { AssetStore } from '../db/ports/asset-store.ts';
import type { CalibrationStore } from '../db/ports/calibration-store.ts';
import type { SpaceRow, VectorStore } from '../db/ports/vector-store.ts';
import {
  acceptanceScore,
  estimateTextNull,
  estimateVisualNull,
  FAMILY_ALPHA,
  isStale,
  SAMPLE_DOCS,
  standardScore,
  type NullModel,
} from '../domain/search/calibration.ts';
import type { Thesaurus } from '../domain/search/concepts.ts';
import { STOP_WORDS } from '../domain/search/query-words.ts';
import type { Scope } from '../domain/scope.ts';
import type { ImageSpaceSearch, VectorResult } from '../assets/search.ts';
import type { Logger } from '../log.ts';
import type { ImageTextModel, ImageTextModelHandle, RgbImage } from '../providers/image-text-model.ts';
import type { ImageRunner } from './analyze.ts';
import { calibrationDocs } from './vector-search.ts';

/** Shortest edge (px) of the raster handed to the model's processor: CLIP's input size, so its resize is a no-op and only the centre crop remains. */
const MODEL_INPUT_PX = 224;
/** Standard deviations below the acceptance score still fetched (as suggestions), as for semantic search. */
const SUGGESTION_DEPTH_Z = 5;

/**
 * The RGB raster an image–text model embeds: auto-oriented, transparency flattened on white, resized
 * (shrink-on-load where the format allows) so the shortest edge is 224 px, as CLIP's processor would.
 * @throws Error when sharp cannot decode the bytes
 */
export async function modelRaster(bytes: Buffer): Promise<RgbImage> {
  const { data, info } = await sharp(bytes, { limitInputPixels: false, animated: false, sequentialRead: true })
    .rotate()
    .flatten({ background: '#ffffff' })
    .resize(MODEL_INPUT_PX, MODEL_INPUT_PX, { fit: 'outside', kernel: 'cubic' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/**
 * Embed stored image bytes with the model: the decode and the inference are each one operation of the
 * image pool (at the priority the runner was made with: background for enrichment), so they queue
 * behind imports and never run more at once than the pool allows.
 * @throws Error when the bytes cannot be decoded or the encoder fails
 */
export async function embedImageBytes(model: ImageTextModel, bytes: Buffer, images: ImageRunner): Promise<Float32Array> {
  const raster = await images.run(() => modelRaster(bytes));
  return images.run(() => model.embedImage(raster));
}

/**
 * Search in the image–text model's space (`asset_image`), calibrated like semantic search
 * (domain/search/calibration.ts): a text query is embedded by the model's text encoder and compared with the
 * images; its null model is fitted, per workspace, on the cosines of probe words (the workspace's own
 * words and frequent WordNet nouns) against sampled images whose text lacks them, exactly as the text
 * space's, so an unrelated word finds nothing at the same family-wise rate. `similar` compares image
 * embeddings, its null fitted on pairs of different sampled images. Both return null while the model
 * is not loaded or its space is being built (search then runs without this signal).
 */
export function createImageSpaceSearch(o: {
  vectors: VectorStore;
  assets: AssetStore;
  calibrations: CalibrationStore;
  handle: ImageTextModelHandle;
  /** the image space (null: none yet or none) */
  space: () => Promise<SpaceRow | null>;
  thesaurus: () => Promise<Thesaurus | null>;
  alpha?: number;
  log: Logger;
}): ImageSpaceSearch {
  const alpha = o.alpha ?? FAMILY_ALPHA;
  const ready = async (): Promise<{ space: SpaceRow; model: ImageTextModel } | null> => {
    const s = o.handle.state();
    if (s.status !== 'ready') return null;
    const space = await o.space();
    return space && space.status === 'ready' && space.model_id === s.model.modelId ? { space, model: s.model } : null;
  };
  const floorOf = (model: NullModel | null, accept: number): number =>
    model ? Math.tanh(model.center + model.spread * (accept - SUGGESTION_DEPTH_Z)) : 0;

  const textNull = async (space: SpaceRow, model: ImageTextModel, scope: Scope, items: number): Promise<NullModel | null> => {
    const key = `asset_image:${space.model_id}:${space.dimensions}`;
    const stored = await o.calibrations.get(key, scope.workspaceId);
    if (stored && !isStale(stored, items)) return stored;
    const thesaurus = await o.thesaurus();
    const fitted = await estimateTextNull({
      docs: await calibrationDocs(o.vectors, o.assets, scope, space),
      items,
      embed: (t) => model.embedTexts(t),
      background: thesaurus?.frequentNouns(200) ?? [],
      stop: STOP_WORDS,
      stem: stemmer,
    });
    if (fitted) {
      await o.calibrations.put(key, scope.workspaceId, fitted);
      o.log.debug({ space: key, workspace_id: scope.workspaceId, ...fitted }, 'image acceptance calibrated');
    }
    return fitted;
  };
  const pairNull = async (space: SpaceRow, scope: Scope, items: number): Promise<NullModel | null> => {
    const key = `asset_image_pairs:${space.model_id}:${space.dimensions}`;
    const stored = await o.calibrations.get(key, scope.workspaceId);
    if (stored && !isStale(stored, items)) return stored;
    const fitted = estimateVisualNull(
      (await o.vectors.sample(scope, space, SAMPLE_DOCS)).map((s) => s.vector),
      items,
    );
    if (fitted) await o.calibrations.put(key, scope.workspaceId, fitted);
    return fitted;
  };
  const scored = (hits: { seq: number; similarity: number }[], model: NullModel | null) =>
    hits.map((h) => ({ ...h, z: model ? standardScore(model, h.similarity) : null }));

  return {
    async text(scope, query, filters, k, head): Promise<VectorResult | null> {
      const r = await ready();
      if (!r) return null;
      try {
        const [q] = await r.model.embedTexts([query]);
        const items = await o.vectors.count(scope, r.space, head);
        const accept = acceptanceScore(items, alpha);
        if (!q || !q.some((x) => x !== 0) || items === 0) return { hits: [], accept };
        const nullModel = await textNull(r.space, r.model, scope, items);
        const hits = await o.vectors.nearest(scope, r.space, q, k, filters, floorOf(nullModel, accept), head);
        return { hits: scored(hits, nullModel), accept };
      } catch (err) {
        o.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'image model query failed; search runs without it');
        return null;
      }
    },
    async similar(scope, sourceSeq, filters, k): Promise<VectorResult | null> {
      const r = await ready();
      if (!r) return null;
      const q = await o.vectors.get(scope, r.space, sourceSeq);
      if (!q) return null; // the source has no image embedding (yet): the visual descriptor answers alone
      const items = await o.vectors.count(scope, r.space);
      const accept = acceptanceScore(Math.max(1, items - 1), alpha);
      const nullModel = await pairNull(r.space, scope, items);
      return { hits: scored(await o.vectors.nearest(scope, r.space, q, k, filters, floorOf(nullModel, accept)), nullModel), accept };
    },
    async status(): Promise<ImageModelReport> {
      const s = o.handle.state();
      if (s.status !== 'ready') return { model: o.handle.source, status: s.status, reason: s.reason };
      // no space yet: it is being set up (or the vector store holds none, which the start log says)
      const space = await o.space();
      return { model: o.handle.source, status: space ? (space.status === 'ready' ? 'ready' : 'building') : 'loading', reason: null };
    },
  };
}
