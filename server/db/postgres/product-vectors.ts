import type { ProductVectorStore } from '../ports/product-vectors.ts';
import { VectorStoreUnavailableError } from '../ports/vector-store.ts';
import type { PgPool } from './pool.ts';
import { pgProductFilterSql } from './products.ts';
import { createPgVectorStore } from './vector-store.ts';

/** Float4 array literal `{x,y,…}` (float32 values print exactly as JS numbers and parse back to the same float4). */
const arrayLiteral = (v: Float32Array): string => `{${Array.from(v).join(',')}}`;

/**
 * The PostgreSQL `ProductVectorStore` (table `product_embeddings` of postgres/migrations/0007). Vectors
 * are stored as float4[] (written and read whether or not pgvector is installed, so the indexer keeps
 * products embedded either way); `nearest` casts them to pgvector's `vector` and ranks one store's
 * vectors of one model exactly by cosine distance (`<=>`), in one SQL query joining `products`, so the
 * store and the `list_products` filters apply inside it and `k` hits come back whenever `k` pass.
 *
 * An exact scan, not an HNSW index: a product table holds every model's vectors of every length, and
 * pgvector indexes only columns of fixed dimensions; a store's catalog (thousands of products) is
 * ranked in milliseconds by the scan (the asset store's measured crossover is ~5,000 rows, see
 * vector-store.ts EXACT_SCAN_MAX). A table per model with an HNSW index, as the asset spaces have,
 * is the step for stores far past that. Without the extension `available()` says why (the asset
 * store's wording) and `nearest` throws VectorStoreUnavailableError; the catalog then answers
 * lexically with `degraded_from`.
 */
export function createPgProductVectors(pool: PgPool): ProductVectorStore {
  let schema: string | null = null;
  const extension = async (): Promise<string | null> => {
    if (schema === null) {
      const r = await pool.query<{ ns: string }>(
        'SELECT quote_ident(n.nspname) AS ns FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1',
        ['vector'],
      );
      schema = r.rows[0]?.ns ?? null;
    }
    return schema;
  };
  const assetVectors = createPgVectorStore(pool);
  const toVector = (a: number[]): Float32Array => Float32Array.from(a);
  return {
    available: async () => ((await extension()) !== null ? { ok: true } : assetVectors.available()),
    async pending(storeId, modelId, dims, limit) {
      const r = await pool.query<{ seq: number; store_id: string; embed_text: string; embed_sha256: string }>(
        `SELECT p.seq, p.store_id, p.embed_text, p.embed_sha256 FROM products p
         LEFT JOIN product_embeddings e ON e.product_seq = p.seq AND e.model_id = $1
         WHERE ($2::text IS NULL OR p.store_id = $2) AND (e.text_sha256 IS NULL OR e.text_sha256 <> p.embed_sha256 OR e.dimensions <> $3)
         ORDER BY p.seq LIMIT $4`,
        [modelId, storeId, dims, limit],
      );
      return r.rows;
    },
    async put(modelId, rows) {
      // one row per seq (the last given), as sequential writes would leave it
      const last = [...new Map(rows.map((r) => [r.seq, r])).values()];
      if (last.length === 0) return;
      // joined to products: a product deleted since `pending` is skipped
      await pool.query(
        `INSERT INTO product_embeddings (product_seq, model_id, dimensions, text_sha256, embedding, nonzero)
         SELECT v.seq, $1, cardinality(v.e::real[]), v.sha, v.e::real[], v.nz
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::boolean[]) AS v (seq, store, sha, e, nz)
         JOIN products p ON p.seq = v.seq AND p.store_id = v.store
         ON CONFLICT (product_seq, model_id) DO UPDATE
           SET dimensions = excluded.dimensions, text_sha256 = excluded.text_sha256, embedding = excluded.embedding, nonzero = excluded.nonzero`,
        [
          modelId,
          last.map((r) => r.seq),
          last.map((r) => r.storeId),
          last.map((r) => r.sha256),
          last.map((r) => arrayLiteral(r.vector)),
          last.map((r) => r.vector.some((x) => x !== 0)),
        ],
      );
    },
    async get(scope, seq, modelId, dims) {
      const r = await pool.query<{ e: number[] }>(
        `SELECT e.embedding AS e FROM product_embeddings e JOIN products p ON p.seq = e.product_seq
         WHERE p.store_id = $1 AND e.product_seq = $2 AND e.model_id = $3 AND e.dimensions = $4`,
        [scope.storeId, seq, modelId, dims],
      );
      return r.rows[0] ? toVector(r.rows[0].e) : null;
    },
    async count(scope, modelId, dims) {
      const r = await pool.query<{ n: number }>(
        `SELECT count(*) AS n FROM product_embeddings e JOIN products p ON p.seq = e.product_seq
         WHERE p.store_id = $1 AND e.model_id = $2 AND e.dimensions = $3`,
        [scope.storeId, modelId, dims],
      );
      return r.rows[0]!.n;
    },
    async sample(scope, modelId, dims, limit) {
      // numeric: seq × 2654435761 overflows bigint past seq 3.4 × 10^9
      const r = await pool.query<{ seq: number; text: string; e: number[] }>(
        `SELECT p.seq, p.embed_text AS text, e.embedding AS e FROM product_embeddings e JOIN products p ON p.seq = e.product_seq
         WHERE p.store_id = $1 AND e.model_id = $2 AND e.dimensions = $3
         ORDER BY (p.seq::numeric * 2654435761) % 4294967296, p.seq LIMIT $4`,
        [scope.storeId, modelId, dims, limit],
      );
      return r.rows.map((x) => ({ seq: x.seq, text: x.text, vector: toVector(x.e) }));
    },
    async nearest(scope, modelId, query, k, f) {
      const x = await extension();
      if (x === null) {
        const a = await assetVectors.available();
        throw new VectorStoreUnavailableError(a.ok ? 'the vector extension vanished' : a.reason);
      }
      if (k <= 0 || !query.some((v) => v !== 0)) return [];
      const w = pgProductFilterSql(f, 5);
      const distance = `(e.embedding::${x}.vector OPERATOR(${x}.<=>) $4::real[]::${x}.vector)`;
      const r = await pool.query<{ seq: number; distance: number }>(
        `SELECT p.seq, ${distance} AS distance
         FROM product_embeddings e JOIN products p ON p.seq = e.product_seq
         WHERE p.store_id = $1 AND e.model_id = $2 AND e.dimensions = $3 AND e.nonzero${w.sql}
         ORDER BY distance, p.seq LIMIT $${5 + w.params.length}`,
        [scope.storeId, modelId, query.length, arrayLiteral(query), ...w.params, k],
      );
      return r.rows;
    },
  };
}
