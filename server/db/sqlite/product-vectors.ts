import type { Database } from 'better-sqlite3';
import type { PartitionBudget } from '../../vector-scan/partition-budget.ts';
import type { PendingEmbedding, ProductVectorStore } from '../ports/product-vectors.ts';
import { createProductVectorPartitions } from './product-vector-index.ts';
import { createSearchChanges } from './search-changes.ts';

const f32Blob = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
// Copy into a fresh ArrayBuffer: a Buffer's byteOffset need not be 4-aligned.
const toVector = (b: Buffer): Float32Array => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

/**
 * The SQLite `ProductVectorStore`: `product_embeddings` (migration 0002, float32 BLOBs) is the storage of
 * record; `nearest` and `count` run on in-memory int8 scan partitions of it (product-vector-index.ts),
 * which follow every connection's writes through the search change log (migration 0046). The database
 * holds no other copy of the vectors. better-sqlite3 is synchronous: each method does its work before it
 * returns its promise.
 * @param budget the process's memory bound of in-memory vector partitions, shared with the asset
 *   partitions (default: one of its own)
 */
export function createSqliteProductVectors(db: Database, budget?: PartitionBudget): ProductVectorStore {
  const s = {
    exists: db.prepare('SELECT 1 FROM products WHERE seq = ? AND store_id = ?'),
    put: db.prepare(
      `INSERT INTO product_embeddings (product_seq, model_id, dimensions, text_sha256, embedding) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(product_seq, model_id) DO UPDATE SET dimensions = excluded.dimensions, text_sha256 = excluded.text_sha256, embedding = excluded.embedding`,
    ),
    pending: db.prepare(
      `SELECT p.seq, p.store_id, p.embed_text, p.embed_sha256 FROM products p
       LEFT JOIN product_embeddings e ON e.product_seq = p.seq AND e.model_id = @model
       WHERE (@store IS NULL OR p.store_id = @store) AND (e.text_sha256 IS NULL OR e.text_sha256 <> p.embed_sha256 OR e.dimensions <> @dims)
       ORDER BY p.seq LIMIT @limit`,
    ),
    get: db
      .prepare(
        `SELECT e.embedding FROM product_embeddings e JOIN products p ON p.seq = e.product_seq
         WHERE p.store_id = ? AND e.product_seq = ? AND e.model_id = ? AND e.dimensions = ?`,
      )
      .pluck(),
    sample: db.prepare(
      `SELECT p.seq, p.embed_text AS text, e.embedding FROM product_embeddings e JOIN products p ON p.seq = e.product_seq
       WHERE p.store_id = ? AND e.model_id = ? AND e.dimensions = ? ORDER BY (p.seq * 2654435761) % 4294967296 LIMIT ?`,
    ),
  };
  const partitions = createProductVectorPartitions(db, createSearchChanges(db), budget);
  return {
    available: async () => ({ ok: true }),
    pending: async (storeId, modelId, dims, limit) => s.pending.all({ store: storeId, model: modelId, dims, limit }) as PendingEmbedding[],
    async put(modelId, rows) {
      if (rows.length === 0) return;
      // products deleted since `pending` are skipped: checked inside the write transaction, where no other connection can delete
      db.transaction(() => {
        for (const r of rows) {
          if (s.exists.get(r.seq, r.storeId) === undefined) continue;
          s.put.run(r.seq, modelId, r.vector.length, r.sha256, f32Blob(r.vector));
        }
      }).immediate();
    },
    async get(scope, seq, modelId, dims) {
      const b = s.get.get(scope.storeId, seq, modelId, dims) as Buffer | undefined;
      return b ? toVector(b) : null;
    },
    count: async (scope, modelId, dims, head) => partitions.count(scope, modelId, dims, head),
    sample: async (scope, modelId, dims, limit) =>
      (s.sample.all(scope.storeId, modelId, dims, limit) as { seq: number; text: string; embedding: Buffer }[]).map((r) => ({
        seq: r.seq,
        text: r.text,
        vector: toVector(r.embedding),
      })),
    nearest: async (scope, modelId, query, k, f, head) =>
      k > 0 && query.some((x) => x !== 0) ? partitions.nearest(scope, modelId, query, f, k, head) : [],
  };
}
