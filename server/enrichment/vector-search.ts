import { stemmer } from 'stemmer';
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
  STALE_SHARE,
  standardScore,
  type NullModel,
} from '../domain/search/calibration.ts';
import type { Thesaurus } from '../domain/search/concepts.ts';
import { STOP_WORDS } from '../domain/search/query-words.ts';
import type { Scope } from '../domain/scope.ts';
import { assetFacts } from '../domain/search/coverage.ts';
import { estimateWordNull, REFERENCE_WORDS, type WordNulls } from '../domain/search/word-null.ts';
import { wordMemoOf } from '../domain/search/word-memo.ts';
import { COLOUR_NAMES } from '../domain/media/colour.ts';
import type { WordSpace } from '../assets/coverage.ts';
import type { AssetVectorSearch, VectorHit, VectorResult } from '../assets/search.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';

/** Floats of word vectors kept in memory per instance (32 MB; cleared past it): 80,000 words of 100 dimensions. */
const WORD_FLOATS_KEPT = 8_000_000;
/** Workspaces whose word statistics are kept in memory (cleared past it; the null is also stored). */
const WORKSPACES_KEPT = 1000;
/** Standard deviations below the acceptance score still fetched (as suggestions). */
const SUGGESTION_DEPTH_Z = 5;

/**
 * The documents a text null model is fitted on (domain/search/calibration.ts `estimateTextNull`): a fixed
 * sample of the space's vectors, each with everything that can be in the asset's embedded text
 * (automatic tags hold the colours of wordless assets), so probes it contains are left out.
 */
export async function calibrationDocs(
  vectors: VectorStore,
  assets: AssetStore,
  scope: Scope,
  space: SpaceRow,
): Promise<{ vector: Float32Array; text: string }[]> {
  const sample = await vectors.sample(scope, space, SAMPLE_DOCS);
  const rows = new Map(
    (
      await assets.bySeqs(
        scope,
        sample.map((s) => s.seq),
      )
    ).map((r) => [r.seq, r]),
  );
  return sample.flatMap((s) => {
    const r = rows.get(s.seq);
    return r
      ? [
          {
            vector: s.vector,
            text: [r.name, r.name_words, r.alt_text, r.tags.join(' '), r.auto_tags.join(' '), r.purpose, r.ocr_text]
              .filter(Boolean)
              .join(' '),
          },
        ]
      : [];
  });
}

/**
 * `AssetVectorSearch` over the enrichment vector spaces, with calibrated acceptance
 * (domain/search/calibration.ts): each hit carries its standard score under the null model of its space in
 * the workspace, and the result the score a match needs (Bonferroni over the workspace's vectors).
 * Null models are estimated on first use and re-estimated when the workspace's vector count has
 * changed by a quarter. `semantic` returns null (search degrades to lexical) when there is no text
 * space, it is still being built after a model change, or the embedder fails; `similar` returns null
 * while the visual space is being rebuilt or when the store holds no vectors (PostgreSQL without
 * pgvector). A source not analysed yet gets its visual vector computed on demand. Nearest neighbours
 * come from the `VectorStore` port, filters applied inside the search: on SQLite the quantised
 * in-memory partitions (db/sqlite/asset-vector-index.ts, through db/sqlite/vector-store.ts), on PostgreSQL pgvector
 * (db/postgres/vector-store.ts); this module does not know which.
 */
export function createAssetVectorSearch(o: {
  vectors: VectorStore;
  assets: AssetStore;
  calibrations: CalibrationStore;
  embedder: TextEmbedder | null;
  /** the text space searched (null: none); awaited per search, so it may wait for the spaces' setup */
  textSpace: () => Promise<SpaceRow | null>;
  /** the visual space searched (null: none, e.g. no vector store) */
  visualSpace: () => Promise<SpaceRow | null>;
  thesaurus: () => Promise<Thesaurus | null>;
  /** family-wise false-match rate (default FAMILY_ALPHA) */
  alpha?: number;
  computeVisual: (seq: number) => Promise<Float32Array | null>;
  log: Logger;
}): AssetVectorSearch {
  const alpha = o.alpha ?? FAMILY_ALPHA;

  const textNull = async (space: SpaceRow, embedder: TextEmbedder, scope: Scope, items: number): Promise<NullModel | null> => {
    const key = `asset_text:${space.model_id}:${space.dimensions}`;
    const stored = await o.calibrations.get(key, scope.workspaceId);
    if (stored && !isStale(stored, items)) return stored;
    const docs = await calibrationDocs(o.vectors, o.assets, scope, space);
    const thesaurus = await o.thesaurus();
    const model = await estimateTextNull({
      docs,
      items,
      embed: (t) => embedder.embed(t),
      background: thesaurus?.frequentNouns(200) ?? [],
      stop: STOP_WORDS,
      stem: stemmer,
    });
    if (model) {
      await o.calibrations.put(key, scope.workspaceId, model);
      o.log.debug({ space: key, workspace_id: scope.workspaceId, ...model }, 'semantic acceptance calibrated');
    }
    return model;
  };

  const visualNull = async (space: SpaceRow, scope: Scope, items: number): Promise<NullModel | null> => {
    const key = `asset_visual:${space.model_id}:${space.dimensions}`;
    const stored = await o.calibrations.get(key, scope.workspaceId);
    if (stored && !isStale(stored, items)) return stored;
    const model = estimateVisualNull(
      (await o.vectors.sample(scope, space, SAMPLE_DOCS)).map((s) => s.vector),
      items,
    );
    if (model) await o.calibrations.put(key, scope.workspaceId, model);
    return model;
  };

  // Word vectors by word (an embedder is fixed per instance): queries and their candidates repeat words.
  // (null: a word the embedder does not know, its vector all zeros)
  const wordVectors = new Map<string, Float32Array | null>();
  const vectorsOf = async (embedder: TextEmbedder, ws: string[]): Promise<ReadonlyMap<string, Float32Array>> => {
    const missing = [...new Set(ws.filter((w) => !wordVectors.has(w)))];
    if (missing.length > 0) {
      if ((wordVectors.size + missing.length) * embedder.dimensions > WORD_FLOATS_KEPT) wordVectors.clear();
      const vs = await embedder.embed(missing);
      missing.forEach((w, i) => wordVectors.set(w, vs[i]!.some((x) => x !== 0) ? vs[i]! : null));
    }
    const out = new Map<string, Float32Array>();
    for (const w of ws) {
      const v = wordVectors.get(w);
      if (v) out.set(w, v);
    }
    return out;
  };
  /** Per workspace: the word null and colour shares, estimated on a sample (the null also stored), and the count they were made at. */
  const wordStats = new Map<string, { items: number; model: WordNulls | null; colourShare: Map<string, number> }>();
  const wordsOf = async (space: SpaceRow, embedder: TextEmbedder, scope: Scope, items: number) => {
    const memoKey = `${space.model_id}:${space.dimensions}:${scope.workspaceId}`;
    const memo = wordStats.get(memoKey);
    if (memo && Math.abs(items - memo.items) <= Math.max(2, STALE_SHARE * memo.items)) return memo;
    const key = `asset_word_null:${space.model_id}:${space.dimensions}`;
    const sample = await o.vectors.sample(scope, space, SAMPLE_DOCS);
    const rows = await o.assets.bySeqs(
      scope,
      sample.map((x) => x.seq),
    );
    const thesaurus = await o.thesaurus();
    const facts = rows.map((r) => assetFacts(r, thesaurus ? wordMemoOf(thesaurus).broader : null));
    const colourShare = new Map<string, number>();
    for (const f of facts) for (const c of f.colours) colourShare.set(c, (colourShare.get(c) ?? 0) + 1 / Math.max(1, facts.length));
    // the line in ln n as its two ends, and the pooled fit, each stored as a null model of its own
    // (word-null.ts); three written by one fit have the same counts, so a write cut short is fitted again
    const keys = [`${key}:1`, `${key}:${REFERENCE_WORDS}`, `${key}:all`];
    const [one, many, all] = await Promise.all(keys.map((k) => o.calibrations.get(k, scope.workspaceId)));
    const oneFit = one && many && all && [many, all].every((m) => m.items === one.items && m.pairs === one.pairs);
    let model: WordNulls | null = oneFit && !isStale(one, items) ? { one, many, all } : null;
    if (!model) {
      model = await estimateWordNull({
        // every word the assets' text vectors hold, a name-only asset's broader words included (though they are
        // no embedding matches): a stricter null for those assets
        docs: facts.map((f) => ({ words: [...f.words, ...f.broader] })),
        items,
        vectorsOf: (ws) => vectorsOf(embedder, ws),
        background: thesaurus?.frequentNouns(200) ?? [],
        stop: STOP_WORDS,
        exclude: COLOUR_NAMES,
      });
      if (model) {
        await o.calibrations.put(keys[0]!, scope.workspaceId, model.one);
        await o.calibrations.put(keys[1]!, scope.workspaceId, model.many);
        await o.calibrations.put(keys[2]!, scope.workspaceId, model.all);
      }
    }
    const stats = { items, model, colourShare };
    if (wordStats.size >= WORKSPACES_KEPT) wordStats.clear();
    wordStats.set(memoKey, stats);
    return stats;
  };

  const scored = (hits: { seq: number; similarity: number }[], model: NullModel | null): VectorHit[] =>
    hits.map((h) => ({ ...h, z: model ? standardScore(model, h.similarity) : null }));
  /** Lowest cosine worth fetching: suggestions reach `SUGGESTION_DEPTH_Z` below the acceptance score. */
  const floorOf = (model: NullModel | null, accept: number): number =>
    model ? Math.tanh(model.center + model.spread * (accept - SUGGESTION_DEPTH_Z)) : 0;

  const spell = o.embedder?.spell?.bind(o.embedder);
  return {
    ...(spell ? { spell } : {}),
    async semantic(scope, query, filters, k, head): Promise<VectorResult | null> {
      const space = await o.textSpace();
      if (!space || space.status !== 'ready' || !o.embedder) return null;
      let q: Float32Array | undefined;
      try {
        [q] = await o.embedder.embed([query]);
      } catch (err) {
        o.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'query embedding failed; search degrades to lexical');
        return null;
      }
      const items = await o.vectors.count(scope, space, head);
      const accept = acceptanceScore(items, alpha);
      if (!q || !q.some((x) => x !== 0) || items === 0) return { hits: [], accept };
      let model: NullModel | null;
      try {
        model = await textNull(space, o.embedder, scope, items);
      } catch (err) {
        o.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'semantic calibration failed; search degrades to lexical');
        return null;
      }
      return { hits: scored(await o.vectors.nearest(scope, space, q, k, filters, floorOf(model, accept), head), model), accept };
    },
    async words(scope, head): Promise<WordSpace | null> {
      const space = await o.textSpace();
      const embedder = o.embedder;
      if (!space || space.status !== 'ready' || !embedder) return null;
      const items = await o.vectors.count(scope, space, head);
      if (items === 0) return null;
      try {
        const stats = await wordsOf(space, embedder, scope, items);
        return { vectorsOf: (ws) => vectorsOf(embedder, ws), null: stats.model, alpha, colourShare: stats.colourShare, items };
      } catch (err) {
        o.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'word calibration failed; coverage uses words and colours only',
        );
        return null;
      }
    },
    async warm(scope): Promise<boolean> {
      const space = await o.textSpace();
      if (!space || space.status !== 'ready' || !o.embedder) return false;
      const items = await o.vectors.count(scope, space);
      if (items === 0) return false;
      await textNull(space, o.embedder, scope, items);
      // any query vector loads the partition: the first axis, nearest one
      const axis = new Float32Array(space.dimensions);
      axis[0] = 1;
      await o.vectors.nearest(scope, space, axis, 1, {}, -1);
      return true;
    },
    async similar(scope, sourceSeq, filters, k): Promise<VectorResult | null> {
      const space = await o.visualSpace();
      if (!space || space.status !== 'ready') return null;
      const q = (await o.vectors.get(scope, space, sourceSeq)) ?? (await o.computeVisual(sourceSeq));
      const items = await o.vectors.count(scope, space);
      const accept = acceptanceScore(Math.max(1, items - 1), alpha);
      if (!q) return { hits: [], accept };
      const model = await visualNull(space, scope, items);
      return { hits: scored(await o.vectors.nearest(scope, space, q, k, filters, floorOf(model, accept)), model), accept };
    },
  };
}
