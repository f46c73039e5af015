import PQueue from 'p-queue';
import type { ProductStore } from '../db/ports/product-store.ts';
import type { ProductVectorStore } from '../db/ports/product-vectors.ts';
import type { Logger } from '../log.ts';
import type { TextEmbedder } from '../providers/embedder-types.ts';

/** Products embedded per `embed()` call. */
const BATCH = 64;

/**
 * Keeps product embeddings in step with the read model and the current embedder: after an import or
 * sync, when a semantic query finds vectors missing, or when the embedder changes (vectors are stored
 * per model id and dimension, so a new model simply has everything pending).
 */
export interface ProductIndexer {
  /**
   * Embed every pending product of a store (all stores when null) with the current embedder, in batches.
   * @returns products embedded now; 0 when there is no embedder
   * @throws Error from the embedder (products stay pending)
   */
  embedPending(storeId: string | null, opts?: { signal?: AbortSignal; onProgress?: (done: number) => void }): Promise<number>;
  /** Queue `embedPending` in the background (one run at a time; failures are logged, products stay pending). */
  schedule(storeId: string | null): void;
  /**
   * Is every product of the store embedded under this embedder's model?
   * @param head the change-log head the caller read for this request (read here when absent)
   */
  complete(storeId: string, embedder: TextEmbedder, head?: number): Promise<boolean>;
  /** Resolves when queued background runs have finished. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * @param products the read model (its change-log head keys the completeness cache)
 * @param vectors where the embeddings go
 * @param embedder returns the current embedder on every call
 */
export function createProductIndexer(
  products: ProductStore,
  vectors: ProductVectorStore,
  embedder: () => TextEmbedder | null,
  log: Logger,
): ProductIndexer {
  const queue = new PQueue({ concurrency: 1 });
  const queued = new Set<string>();
  let closed = false;
  /** store|model|dims → change-log head at which the store was found fully embedded */
  const completeAt = new Map<string, number>();

  const embedPending: ProductIndexer['embedPending'] = async (storeId, opts = {}) => {
    const e = embedder();
    if (!e) return 0;
    if (storeId === null) completeAt.clear();
    else for (const k of completeAt.keys()) if (k.startsWith(`${storeId}|`)) completeAt.delete(k);
    let done = 0;
    for (;;) {
      opts.signal?.throwIfAborted();
      const batch = await vectors.pending(storeId, e.modelId, e.dimensions, BATCH);
      if (batch.length === 0) return done;
      const embedded = await e.embed(
        batch.map((b) => b.embed_text),
        opts.signal,
      );
      if (embedded.length !== batch.length || embedded.some((v) => v.length !== e.dimensions)) {
        throw new Error(`embedder ${e.modelId} returned ${embedded.length} vectors for ${batch.length} texts (or a wrong dimension)`);
      }
      await vectors.put(
        e.modelId,
        batch.map((b, i) => ({ seq: b.seq, storeId: b.store_id, sha256: b.embed_sha256, vector: embedded[i]! })),
      );
      done += batch.length;
      opts.onProgress?.(done);
    }
  };

  return {
    embedPending,
    schedule(storeId) {
      const key = storeId ?? '*';
      if (closed || queued.has(key) || !embedder()) return;
      queued.add(key);
      void queue.add(async () => {
        try {
          const n = await embedPending(storeId);
          if (n > 0) log.info({ store_id: storeId, embedded: n }, 'product embeddings updated');
        } catch (err) {
          log.warn(
            { store_id: storeId, err: (err as Error).message },
            'product embedding failed; semantic search degrades to lexical until it succeeds',
          );
        } finally {
          queued.delete(key);
        }
      });
    },
    async complete(storeId, e, given) {
      // The check scans the store's products, so a positive answer is reused while the search change
      // log (migration 0046: every write to products, embeddings and memberships, by any process)
      // stands still; writes through this process also invalidate it at once via `embedPending`. A
      // request that read the head already (`given`) passes it; an answer found at a later head stands for it.
      const key = `${storeId}|${e.modelId}|${e.dimensions}`;
      const head = given ?? (await products.changeHead());
      if ((completeAt.get(key) ?? -1) >= head) return true;
      const ok = (await vectors.pending(storeId, e.modelId, e.dimensions, 1)).length === 0;
      if (ok) completeAt.set(key, head);
      else completeAt.delete(key);
      return ok;
    },
    idle: () => queue.onIdle(),
    async close() {
      closed = true;
      queue.clear();
      await queue.onIdle();
    },
  };
}
