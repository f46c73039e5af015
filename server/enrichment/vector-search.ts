import type { AssetFilters } from '../db/assets.ts';
import { VEC0_K_MAX, type KnnHit, type SpaceRow, type VectorQueries } from '../db/vectors.ts';
import type { Scope } from '../domain/scope.ts';
import type { AssetVectorSearch, VectorHit } from '../library/search.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';

/**
 * Filtered KNN without recall loss: kind/category/subtype run inside the KNN (vec0 metadata columns);
 * orientation (from width/height) and spaces without metadata columns are filtered afterwards;
 * the rows are still checked against `assets` (scope, snapshot, excluded source, current metadata).
 * For spaces without metadata columns: over-fetch from the workspace partition, drop hits below the
 * similarity floor and those failing the filters, and grow the fetch (×4) until `k` hits pass, the
 * partition or the floor is exhausted, or sqlite-vec's k limit is reached; past that limit fall back
 * to an exact scan over the admissible rows. Hits are nearest first.
 */
export function filteredKnn(vq: VectorQueries, space: SpaceRow, scope: Scope, q: Float32Array, f: AssetFilters, k: number, minSimilarity: number): VectorHit[] {
  const toHit = (h: KnnHit): VectorHit => ({ seq: h.seq, similarity: Math.max(0, Math.min(1, 1 - h.distance)) });
  // sqlite-vec's KNN cost grows with k (≈9 ms at k=10, 67 ms at 500, 160 ms at 1,000 over 100k×100-d),
  // so over-fetch only when a metadata filter can drop hits.
  // orientation is never a vec0 column: it always filters after the KNN.
  const selective = (Boolean(f.kind || f.category || f.subtype) && !vq.filtersInKnn(space)) || Boolean(f.orientation);
  let fetch = Math.min(VEC0_K_MAX, selective ? k * 2 + 16 : k + 2);
  for (;;) {
    const raw = vq.knn(space, scope.workspaceId, q, fetch, f);
    const aboveFloor = raw.map(toHit).filter((h) => h.similarity >= minSimilarity);
    const ok = vq.admissible(scope, aboveFloor.map((h) => h.seq), f);
    const hits = aboveFloor.filter((h) => ok.has(h.seq));
    const exhausted = raw.length < fetch || aboveFloor.length < raw.length;
    if (hits.length >= k || exhausted) return hits.slice(0, k);
    if (fetch >= VEC0_K_MAX) {
      return vq.scanFiltered(space, scope, q, f, k).map(toHit).filter((h) => h.similarity >= minSimilarity);
    }
    fetch = Math.min(VEC0_K_MAX, fetch * 4);
  }
}

/**
 * `AssetVectorSearch` over the enrichment vector spaces. `semantic` returns null (search degrades to
 * lexical) when there is no text space, it is still being built after a model change, or the
 * embedder fails; `similar` returns null only while the visual space is being rebuilt. A source not
 * analysed yet gets its visual vector computed on demand.
 */
export function createAssetVectorSearch(o: {
  vectors: VectorQueries;
  embedder: TextEmbedder | null;
  textSpace: () => SpaceRow | null;
  visualSpace: () => SpaceRow;
  minSemanticSimilarity: number;
  computeVisual: (seq: number) => Promise<Float32Array | null>;
  log: Logger;
}): AssetVectorSearch {
  return {
    async semantic(scope, query, filters, k) {
      const space = o.textSpace();
      if (!space || space.status !== 'ready' || !o.embedder) return null;
      let q: Float32Array | undefined;
      try {
        [q] = await o.embedder.embed([query]);
      } catch (err) {
        o.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'query embedding failed; search degrades to lexical');
        return null;
      }
      if (!q || !q.some((x) => x !== 0)) return [];
      return filteredKnn(o.vectors, space, scope, q, filters, k, o.minSemanticSimilarity);
    },
    async similar(scope, sourceSeq, filters, k) {
      const space = o.visualSpace();
      if (space.status !== 'ready') return null;
      const q = o.vectors.get(space, sourceSeq) ?? (await o.computeVisual(sourceSeq));
      if (!q) return [];
      return filteredKnn(o.vectors, space, scope, q, filters, k, 0);
    },
  };
}
