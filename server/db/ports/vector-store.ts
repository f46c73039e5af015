import type { Scope } from '../../domain/scope.ts';
import type { AssetFilters } from './asset-store.ts';

export type SpacePurpose = 'asset_text' | 'asset_visual' | 'asset_image';

/** A vector space: one model id + dimension, one vec0 table. */
export interface SpaceRow {
  id: number;
  purpose: SpacePurpose;
  model_id: string;
  dimensions: number;
  status: 'building' | 'ready' | 'retired';
  created_at: string;
}

/** Whether a store can serve vectors; when not, `reason` says why and what fixes it (for the start log and `degraded_from`). */
export type VectorAvailability = { ok: true } | { ok: false; reason: string };

/** A nearest-neighbour hit: asset seq and cosine similarity (1 = same direction, −1 = opposite). */
export interface VectorHit {
  seq: number;
  similarity: number;
}

/** Thrown by every `VectorStore` method but `available` when the backend cannot hold vectors; `message` is the availability reason. */
export class VectorStoreUnavailableError extends Error {
  override readonly name = 'VectorStoreUnavailableError';
}

/**
 * Thrown by `setStatus` (and `put`) on a retired space, e.g. one another process retired after the
 * caller read it: its vectors are gone, so it is not brought back by a status; `ensureSpace` revives it
 * empty. `spaceId` is the space's id.
 */
export class VectorSpaceRetiredError extends Error {
  override readonly name = 'VectorSpaceRetiredError';
  constructor(
    readonly spaceId: number,
    what: string,
  ) {
    super(`${what}: vector space ${spaceId} is retired (revive it with ensureSpace)`);
  }
}

/**
 * Port: the asset vectors of the enrichment spaces (one space per embedding model id + dimensions and
 * purpose), as callers outside server/db need them. A space is `building` while a new model re-embeds
 * the assets, `ready` when searched, `retired` when its vectors are gone: a retired space (as a caller
 * holding an old `SpaceRow` may still pass, e.g. one another process retired) reads as empty, in every
 * process (`count` 0, `get` null, `sample` and `nearest` none, `remove` does nothing), until
 * `ensureSpace` revives it empty. Every method taking a `Scope` takes it first and never reads or
 * writes a vector of an asset of another tenant or workspace (it behaves as missing); a vector goes
 * with its asset when the asset is deleted. Vectors are float32; similarity is cosine; `SpaceRow.created_at`
 * is ISO 8601 UTC with ms. Implementations: SQLite (server/db/sqlite/vector-store.ts: sqlite-vec tables,
 * searched by the quantised in-memory scan) and PostgreSQL (server/db/postgres/vector-store.ts, pgvector);
 * both pass server/db/contract/vector-store-contract.ts.
 */
export interface VectorStore {
  /** Whether vectors can be stored here (PostgreSQL: the `vector` extension is installed). Never throws for a missing extension. */
  available(): Promise<VectorAvailability>;
  /** Live (building or ready) spaces of a purpose, oldest first. */
  liveSpaces(purpose: SpacePurpose): Promise<SpaceRow[]>;
  /**
   * The space of a model, created empty as `status` when missing; a retired space of the same model is
   * revived (empty) as `status`; a live one is returned as it is. Safe to race from several processes.
   * @param dimensions length of every vector of the space (> 0)
   */
  ensureSpace(purpose: SpacePurpose, modelId: string, dimensions: number, status: 'building' | 'ready'): Promise<SpaceRow>;
  /**
   * Set a live space's status (`ready` after a rebuild). Retiring goes through `retire`, reviving through `ensureSpace`.
   * @throws VectorSpaceRetiredError when the space is retired
   */
  setStatus(space: SpaceRow, status: 'building' | 'ready'): Promise<void>;
  /** Retire a space and delete its vectors. */
  retire(space: SpaceRow): Promise<void>;
  /**
   * Insert or replace the vector of one asset of the scope.
   * @returns false (nothing written) when the scope holds no asset `seq`
   * @throws Error when `vector.length` differs from the space's dimensions
   * @throws VectorSpaceRetiredError (nothing written) when the space is retired, also by a `retire` that
   *   commits while the put runs (a put that commits first is deleted with the space)
   */
  put(scope: Scope, space: SpaceRow, seq: number, vector: Float32Array): Promise<boolean>;
  /** The stored vector of an asset of the scope, or null. */
  get(scope: Scope, space: SpaceRow, seq: number): Promise<Float32Array | null>;
  /** Delete the vector of one asset of the scope (no vector: nothing happens). */
  remove(scope: Scope, space: SpaceRow, seq: number): Promise<void>;
  /**
   * Number of vectors the space holds for assets of the scope.
   * @param head the change-log head the caller read for this request (`AssetStore.searchSnapshot`): a
   * store whose partitions follow the log answers as of it without reading the log again (ignored by others)
   */
  count(scope: Scope, space: SpaceRow, head?: number): Promise<number>;
  /**
   * Up to `limit` vectors of the scope in a fixed pseudo-random order (Knuth's multiplicative hash of
   * the seq, seq × 2654435761 mod 2^32, ascending): the same corpus always gives the same sample, on
   * every backend. For calibration (domain/search/calibration.ts).
   */
  sample(scope: Scope, space: SpaceRow, limit: number): Promise<{ seq: number; vector: Float32Array }[]>;
  /**
   * The `k` vectors of the scope nearest to `query` by cosine whose assets pass the filters (kind,
   * category, subtype, orientation, maxSeq, excludeSeq, applied inside the search, so `k` hits come
   * back whenever `k` assets pass), nearest first, each with similarity ≥ `minSimilarity` (default −1:
   * no floor). A zero query has no neighbours.
   * @param head as for `count`
   * @throws Error when `query.length` differs from the space's dimensions
   */
  nearest(
    scope: Scope,
    space: SpaceRow,
    query: Float32Array,
    k: number,
    filters: AssetFilters,
    minSimilarity?: number,
    head?: number,
  ): Promise<VectorHit[]>;
}

/** @throws Error naming both lengths when a vector does not fit the space */
export function checkDimensions(space: SpaceRow, v: Float32Array): void {
  if (v.length !== space.dimensions) throw new Error(`vector has ${v.length} dimensions, space ${space.model_id} has ${space.dimensions}`);
}
