import type { ProductFilters, StoreScope } from './product-store.ts';
import type { VectorAvailability } from './vector-store.ts';

export type { VectorAvailability } from './vector-store.ts';
export { VectorStoreUnavailableError } from './vector-store.ts';

/** A product whose vector under a model is missing or stale (its embedding text changed, or another length). */
export interface PendingEmbedding {
  seq: number;
  store_id: string;
  embed_text: string;
  /** sha256 hex of `embed_text`: stored with the vector, so a later text change makes it stale */
  embed_sha256: string;
}

/**
 * Port: product embeddings (one float32 vector per product and embedding model id; vectors of different
 * models are never compared), for semantic `list_products` and related products. Not the asset
 * `VectorStore` (ports/vector-store.ts): that one holds spaces of asset vectors filtered by asset
 * facets, this one is keyed by product and model and filtered by the `list_products` filters, with the
 * staleness hash the indexer needs. Every method taking a `StoreScope` never reads a vector of another
 * store. Similarity is cosine; a zero vector (a text without a known word) is stored and counted but is
 * never a neighbour. Implementations: SQLite (server/db/sqlite/product-vectors.ts: the int8 scan
 * partitions of db/sqlite/product-vector-index.ts) and PostgreSQL (server/db/postgres/product-vectors.ts,
 * pgvector); both pass server/db/contract/product-vectors-contract.ts.
 */
export interface ProductVectorStore {
  /** Whether `nearest` can run here (PostgreSQL: the `vector` extension is installed). Never throws for a missing extension. */
  available(): Promise<VectorAvailability>;
  /**
   * Products of one store (all stores when null) whose vector under `modelId` with `dims` dimensions is
   * missing or stale, oldest seq first.
   */
  pending(storeId: string | null, modelId: string, dims: number, limit: number): Promise<PendingEmbedding[]>;
  /**
   * Store vectors in one transaction, replacing a product's previous vector under the model. A seq whose
   * product is gone (deleted since `pending`) is skipped.
   * @param rows.sha256 the `embed_sha256` the vector was computed from
   */
  put(modelId: string, rows: { seq: number; storeId: string; sha256: string; vector: Float32Array }[]): Promise<void>;
  /** The stored vector of a product of the store under a model with `dims` dimensions, or null. */
  get(scope: StoreScope, seq: number, modelId: string, dims: number): Promise<Float32Array | null>;
  /**
   * Products of the store with a vector under the model and length (zero vectors included).
   * @param head the change-log head the caller read for this request (`ProductStore.searchSnapshot`): a
   * store whose partitions follow the log answers as of it without reading the log again (ignored by others)
   */
  count(scope: StoreScope, modelId: string, dims: number, head?: number): Promise<number>;
  /**
   * Up to `limit` embedded products of the store (vector and embedded text) in a fixed pseudo-random
   * order (Knuth's multiplicative hash of the seq, seq × 2654435761 mod 2^32 ascending), for calibration.
   */
  sample(scope: StoreScope, modelId: string, dims: number, limit: number): Promise<{ seq: number; text: string; vector: Float32Array }[]>;
  /**
   * The `k` products of the store nearest to `query` (cosine) under `modelId` that pass the filters
   * (statuses, collection, type, snapshot bound, excluded seq: applied inside the search, so `k` hits
   * come back whenever `k` products pass), nearest first. A zero query has no neighbours.
   * @param head as for `count`
   * @returns seqs with cosine distance (1 − similarity, 0 = same direction)
   * @throws VectorStoreUnavailableError when `available()` is not ok
   */
  nearest(
    scope: StoreScope,
    modelId: string,
    query: Float32Array,
    k: number,
    f: ProductFilters,
    head?: number,
  ): Promise<{ seq: number; distance: number }[]>;
}
