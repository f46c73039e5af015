import type { Database } from 'better-sqlite3';
import type { ProductStore } from '../ports/product-store.ts';
import type { ProductVectorStore } from '../ports/product-vectors.ts';
import { createProductQueries, type ProductQueries } from './products.ts';

/**
 * The SQLite `ProductStore`: an adapter over the synchronous queries of server/db/sqlite/products.ts (tables of
 * migrations 0002, 0011, 0046, 0047), which it does not change. better-sqlite3 is synchronous: each
 * method does its work before it returns its promise.
 * @param q the product queries of the same connection (share them with `createSqliteProductVectors`)
 */
export function createSqliteProductStore(db: Database, q: ProductQueries = createProductQueries(db)): ProductStore {
  return {
    upsertMany: async (scope, products, source, opts) => q.upsertMany(scope, products, source, opts),
    deleteByGids: async (scope, gids) => q.deleteByGids(scope, gids),
    gidsOfStore: async (scope) => q.gidsOfStore(scope),
    setSyncedAt: async (scope, at) => q.setSyncedAt(scope, at),
    syncedAt: async (scope) => q.syncedAt(scope),
    async syncState(scope) {
      const r = q.syncState(scope);
      return r && { updated_at_mark: r.updated_at_mark, deletions_mark: r.deletions_mark, last_full_sync_at: r.last_full_sync_at };
    },
    putSyncState: async (scope, st) => q.putSyncState(scope, st),
    maxSeq: async (scope) => q.maxSeq(scope),
    recentStores: async (limit) => q.recentStores(limit),
    byGids: async (scope, gids) => q.byGids(scope, gids),
    byHandle: async (scope, handle) => q.byHandle(scope, handle),
    bySeqs: async (scope, seqs) => q.bySeqs(scope, seqs),
    refsBySeqs: async (scope, seqs) => q.refsBySeqs(scope, seqs),
    variantsOf: async (seqs) => q.variantsOf(seqs),
    imagesOf: async (seqs) => q.imagesOf(seqs),
    collectionsOf: async (seqs) => q.collectionsOf(seqs),
    collectionHandles: async (scope) => q.collectionHandles(scope),
    changeHead: async () => q.changeHead(),
    searchSnapshot: async (scope) => q.searchSnapshot(scope),
    browse: async (scope, f, offset, limit) => q.browse(scope, f, offset, limit),
    relatedByAttributes: async (scope, source, f, k) => q.relatedByAttributes(scope, source, f, k),
  };
}

/**
 * The SQLite `ProductVectorStore` over the same queries: `product_embeddings` as the storage of record,
 * searched by the int8 scan partitions (db/sqlite/product-vector-index.ts, unchanged). The adapter adds what the
 * port promises beyond the queries: `get` only for a product of the scope, `put` skipping products
 * deleted since `pending` (checked inside the write transaction, where no other connection can delete).
 */
export function createSqliteProductVectors(db: Database, q: ProductQueries = createProductQueries(db)): ProductVectorStore {
  const exists = db.prepare('SELECT 1 FROM products WHERE seq = ? AND store_id = ?');
  return {
    available: async () => ({ ok: true }),
    pending: async (storeId, modelId, dims, limit) => q.pendingEmbeddings(storeId, modelId, dims, limit),
    async put(modelId, rows) {
      if (rows.length === 0) return;
      // nested in this transaction, putEmbeddings' own becomes a savepoint
      db.transaction(() => {
        q.putEmbeddings(
          modelId,
          rows.filter((r) => exists.get(r.seq, r.storeId) !== undefined),
        );
      }).immediate();
    },
    get: async (scope, seq, modelId, dims) => (q.refsBySeqs(scope, [seq]).size > 0 ? q.embeddingOf(seq, modelId, dims) : null),
    count: async (scope, modelId, dims, head) => q.embeddingCount(scope, modelId, dims, head),
    sample: async (scope, modelId, dims, limit) => q.embeddingSample(scope, modelId, dims, limit),
    nearest: async (scope, modelId, query, k, f, head) =>
      k > 0 && query.some((x) => x !== 0) ? q.knn(scope, modelId, query, f, k, head) : [],
  };
}
