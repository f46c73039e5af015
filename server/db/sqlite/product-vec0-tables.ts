import type { Database } from 'better-sqlite3';

/**
 * The sqlite-vec tables over product embeddings: one `vec0` table per vector length
 * (`product_vec_f<dims>`, cosine distance), partitioned by `<store_id>|<model_id>` so a query scans only
 * one store's vectors of one model (https://alexgarcia.xyz/sqlite-vec/features/vec0.html, partition keys).
 * Its rowid is the `product_embeddings` rowid, which stays the source of truth: the tables are derived,
 * created on first use for a dimension (a model's length is only known at run time) and back-filled
 * from `product_embeddings` then. The product vectors (product-vectors.ts) write them with every vector
 * and the product store (products.ts) drops the rows of deleted products (vec0 has no cascade); searches
 * run on the in-memory partitions of product-vector-index.ts.
 */
export function createProductVec0Tables(db: Database) {
  const known = new Set<number>();
  const table = (dims: number): string => {
    if (!Number.isInteger(dims) || dims < 1 || dims > 8192) throw new Error(`invalid vector length ${dims}`);
    return `product_vec_f${dims}`;
  };
  const isZero = (v: Float32Array): boolean => v.every((x) => x === 0);
  const blob = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  const tables = (): { name: string }[] =>
    db.prepare("SELECT name FROM sqlite_master WHERE name GLOB 'product_vec_f[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'").all() as {
      name: string;
    }[];

  /** Create (and back-fill) the table for a vector length if needed. */
  const ensure = (dims: number): string => {
    const t = table(dims);
    if (known.has(dims)) return t;
    const exists = db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(t);
    if (!exists) {
      db.transaction(() => {
        // Zero vectors (texts without a known word) have no direction and are never neighbours.
        db.exec(`CREATE VIRTUAL TABLE ${t} USING vec0(part text partition key, embedding float[${dims}] distance_metric=cosine)`);
        const ins = db.prepare(`INSERT INTO ${t} (rowid, part, embedding) VALUES (?, ?, ?)`);
        const rows = db
          .prepare(
            `SELECT e.rowid AS id, p.store_id || '|' || e.model_id AS part, e.embedding FROM product_embeddings e JOIN products p ON p.seq = e.product_seq WHERE e.dimensions = ?`,
          )
          .all(dims) as { id: number; part: string; embedding: Buffer }[];
        for (const r of rows) {
          const v = new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength));
          if (!isZero(v)) ins.run(BigInt(r.id), r.part, r.embedding);
        }
      }).immediate();
    }
    known.add(dims);
    return t;
  };

  return {
    /** Put one vector (replacing the row's previous one). Call inside the embedding write transaction. */
    put(embeddingRowid: number, storeId: string, modelId: string, v: Float32Array): void {
      const t = ensure(v.length);
      db.prepare(`DELETE FROM ${t} WHERE rowid = ?`).run(BigInt(embeddingRowid));
      if (!isZero(v))
        db.prepare(`INSERT INTO ${t} (rowid, part, embedding) VALUES (?, ?, ?)`).run(
          BigInt(embeddingRowid),
          `${storeId}|${modelId}`,
          blob(v),
        );
    },
    /** Drop the vectors of embedding rows about to be deleted (product deletions). */
    drop(embeddingRowids: number[]): void {
      if (embeddingRowids.length === 0) return;
      for (const { name } of tables()) {
        const del = db.prepare(`DELETE FROM ${name} WHERE rowid = ?`);
        for (const id of embeddingRowids) del.run(BigInt(id));
      }
    },
    /**
     * The k nearest vectors of one store and model (`embedding MATCH ? AND k = ?`).
     * @returns embedding rowids with cosine distance, nearest first; [] for a zero query vector
     */
    knn(storeId: string, modelId: string, query: Float32Array, k: number): { id: number; distance: number }[] {
      if (isZero(query)) return [];
      const t = ensure(query.length);
      return db
        .prepare(`SELECT rowid AS id, distance FROM ${t} WHERE embedding MATCH ? AND k = ? AND part = ? ORDER BY distance`)
        .all(blob(query), Math.min(4096, k), `${storeId}|${modelId}`) as { id: number; distance: number }[];
    },
  };
}
export type ProductVec0Tables = ReturnType<typeof createProductVec0Tables>;
