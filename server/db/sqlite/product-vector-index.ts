import type { Database } from 'better-sqlite3';
import { PartitionBudget, PartitionMap } from '../../vector-scan/partition-budget.ts';
import { QuantisedIndex, type ScanFilter } from '../../vector-scan/quantised-index.ts';
import type { ProductFilters, StoreScope } from '../ports/product-store.ts';
import { replayChanges, type SearchChanges } from './search-changes.ts';

const STATUS = 0,
  TYPE = 1;
/** A partition is reloaded whole when more of its rows changed than this share (catalog syncs). */
const RELOAD_SHARE = 0.25;

/** Lower case of ASCII letters only, as SQLite's NOCASE collation folds. */
const asciiLower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const toVector = (b: Buffer): Float32Array => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

interface Row {
  seq: number;
  status: string;
  product_type: string;
  embedding: Buffer;
}
interface Partition {
  storeId: string;
  modelId: string;
  dims: number;
  index: QuantisedIndex;
}

/**
 * In-memory partitions of product embeddings, one per (store, model, length), searched by the int8
 * WebAssembly scan with exact re-rank (vector-scan/quantised-index.ts). `product_embeddings` stays the
 * storage of record: a partition is loaded on its first search and kept in step with every process's
 * writes by replaying `search_changes` before each search. Status, product type, collection, snapshot
 * bound and excluded product are applied during the scan. Loaded partitions count against `budget`
 * (shared with the process's other partitions): the least recently searched are dropped beyond it and
 * load again on their next search.
 * @param budget the process's partition memory bound (default: one of its own, DEFAULT_PARTITION_BUDGET_BYTES)
 */
export function createProductVectorPartitions(db: Database, changes: SearchChanges, budget: PartitionBudget = new PartitionBudget()) {
  const parts = new PartitionMap<Partition>(budget);
  const codes = new Map<string, number>();
  let mark = changes.head();
  const code = (v: string): number => {
    let c = codes.get(v);
    if (c === undefined) codes.set(v, (c = codes.size + 1));
    return c;
  };
  const cols = 'p.seq AS seq, p.status, p.product_type, e.embedding';
  const s = {
    // CROSS JOIN: the store's products by index, then the embedding by primary key (product_seq, model_id)
    all: db.prepare(
      `SELECT ${cols} FROM products p CROSS JOIN product_embeddings e ON e.product_seq = p.seq AND e.model_id = ? AND e.dimensions = ? WHERE p.store_id = ?`,
    ),
    one: db.prepare(
      `SELECT ${cols} FROM products p CROSS JOIN product_embeddings e ON e.product_seq = p.seq AND e.model_id = ? AND e.dimensions = ? WHERE p.seq = ? AND p.store_id = ?`,
    ),
    members: db.prepare('SELECT product_seq AS seq FROM collection_products WHERE store_id = ? AND handle = ?').pluck(),
  };
  const put = (index: QuantisedIndex, r: Row): void => {
    const v = toVector(r.embedding);
    if (v.length === index.dims) index.upsert(r.seq, v, [code(r.status), code(asciiLower(r.product_type))]);
  };

  /** Bring every loaded partition up to the log's head (`head`: as the caller read it for this request; read here when absent). */
  const sync = (head?: number): void => {
    mark = replayChanges(changes, mark, 'product', parts, {
      partOf: (p) => p.storeId,
      apply: (p, seq) => {
        const r = s.one.get(p.modelId, p.dims, seq, p.storeId) as Row | undefined;
        if (r) put(p.index, r);
        else p.index.remove(seq);
      },
      reloadShare: RELOAD_SHARE,
      head,
    });
  };

  const partition = (scope: StoreScope, modelId: string, dims: number, head?: number): Partition => {
    sync(head);
    const key = `${scope.storeId}|${dims}|${modelId}`;
    let p = parts.use(key);
    if (!p) {
      const index = new QuantisedIndex(dims, 2);
      p = { storeId: scope.storeId, modelId, dims, index };
      for (const r of s.all.iterate(modelId, dims, scope.storeId) as Iterable<Row>) put(index, r);
      parts.set(key, p);
    }
    return p;
  };

  return {
    /** Products of the store with a vector under the model (zero vectors included), as of `head` as for `nearest`. */
    count: (scope: StoreScope, modelId: string, dims: number, head?: number): number => partition(scope, modelId, dims, head).index.size,
    /**
     * The `k` products of the store nearest to `q` (cosine) under `modelId` that pass the filters,
     * nearest first, with cosine distance (1 − similarity). Zero vectors are never neighbours.
     * `head`: the change-log head read for this request (read here when absent).
     */
    nearest(
      scope: StoreScope,
      modelId: string,
      q: Float32Array,
      f: ProductFilters,
      k: number,
      head?: number,
    ): { seq: number; distance: number }[] {
      const p = partition(scope, modelId, q.length, head);
      const known = (v: string): number => codes.get(v) ?? -1;
      const attrs: ScanFilter['attrs'] = [{ col: STATUS, values: f.statuses.map(known) }];
      if (f.productType) attrs.push({ col: TYPE, values: [known(asciiLower(f.productType))] });
      const keys = f.collection ? new Set(s.members.all(scope.storeId, f.collection.toLowerCase()) as number[]) : undefined;
      return p.index
        .search(q, k, { attrs, keys, maxKey: f.maxSeq, excludeKey: f.excludeSeq })
        .map((h) => ({ seq: h.key, distance: 1 - h.similarity }));
    },
  };
}
export type ProductVectorPartitions = ReturnType<typeof createProductVectorPartitions>;
