import { createHash } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { htmlToText, productEmbeddingText, type CatalogProductInput } from '../../domain/catalog.ts';
import { createProductVectorPartitions } from './product-vector-index.ts';
import { createProductVectorIndex } from './product-vectors.ts';
import { productFilterSql } from './product-rows.ts';
import type { ImageRow, ProductFilters, ProductRow, StoreScope, VariantRow } from '../ports/product-store.ts';
import { createSearchChanges } from './search-changes.ts';
import type { PartitionBudget } from '../../vector-scan/partition-budget.ts';

export { productFilterSql } from './product-rows.ts';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const f32Blob = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/**
 * Catalog read-model queries (products, variants, images, collections, FTS5 rows, embeddings, sync state).
 * Every read takes the store scope first; a product of another store behaves as missing.
 * @param budget the process's memory bound of in-memory vector partitions (default: one of its own)
 */
export function createProductQueries(db: Database, budget?: PartitionBudget) {
  const s = {
    find: db.prepare('SELECT seq FROM products WHERE store_id = ? AND gid = ?'),
    insert: db.prepare(
      `INSERT INTO products (store_id, gid, handle, title, description_html, description_text, status, total_inventory, product_type, vendor,
         tags, options, selling_plan_groups, source, platform_updated_at, synced_at, embed_text, embed_sha256)
       VALUES (@store_id, @gid, @handle, @title, @description_html, @description_text, @status, @total_inventory, @product_type, @vendor,
         @tags, @options, @selling_plan_groups, @source, @platform_updated_at, @synced_at, @embed_text, @embed_sha256)`,
    ),
    update: db.prepare(
      `UPDATE products SET handle=@handle, title=@title, description_html=@description_html, description_text=@description_text, status=@status,
         total_inventory=@total_inventory, product_type=@product_type, vendor=@vendor, tags=@tags, options=@options,
         selling_plan_groups=@selling_plan_groups, source=@source, platform_updated_at=@platform_updated_at, synced_at=@synced_at,
         embed_text=@embed_text, embed_sha256=@embed_sha256
       WHERE seq = @seq`,
    ),
    delVariants: db.prepare('DELETE FROM product_variants WHERE product_seq = ?'),
    delImages: db.prepare('DELETE FROM product_images WHERE product_seq = ?'),
    insVariant: db.prepare(
      `INSERT INTO product_variants (product_seq, position, gid, title, price, compare_at_price, sku, available, inventory_quantity, image_url, selected_options)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insImage: db.prepare('INSERT INTO product_images (product_seq, position, url, alt_text, width, height) VALUES (?, ?, ?, ?, ?, ?)'),
    upsertCollection: db.prepare(
      `INSERT INTO collections (store_id, handle, title, gid) VALUES (?, ?, ?, ?)
       ON CONFLICT(store_id, handle) DO UPDATE SET title = excluded.title, gid = coalesce(excluded.gid, collections.gid)`,
    ),
    delMemberships: db.prepare('DELETE FROM collection_products WHERE product_seq = ?'),
    addMembership: db.prepare('INSERT OR IGNORE INTO collection_products (store_id, handle, product_seq) VALUES (?, ?, ?)'),
    delFts: db.prepare('DELETE FROM products_fts WHERE rowid = ?'),
    insFts: db.prepare(
      'INSERT INTO products_fts (rowid, title, handle, vendor, product_type, tags, description, variants) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    delByGid: db.prepare('DELETE FROM products WHERE store_id = ? AND gid = ?'),
    gids: db.prepare('SELECT gid FROM products WHERE store_id = ?'),
    setSyncedAt: db.prepare('UPDATE stores SET catalog_synced_at = ? WHERE id = ?'),
    syncedAt: db.prepare('SELECT catalog_synced_at AS at FROM stores WHERE id = ?'),
    syncState: db.prepare('SELECT * FROM catalog_sync_state WHERE store_id = ?'),
    putSyncState: db.prepare(
      `INSERT INTO catalog_sync_state (store_id, updated_at_mark, deletions_mark, last_full_sync_at) VALUES (@store_id, @updated_at_mark, @deletions_mark, @last_full_sync_at)
       ON CONFLICT(store_id) DO UPDATE SET updated_at_mark = excluded.updated_at_mark, deletions_mark = excluded.deletions_mark,
         last_full_sync_at = coalesce(excluded.last_full_sync_at, catalog_sync_state.last_full_sync_at)`,
    ),
    // Global max(seq) is one B-tree seek; a per-store max would scan the store's rows. Either bounds a snapshot.
    maxSeq: db.prepare('SELECT coalesce(max(seq), 0) AS m FROM products'),
    searchSnapshot: db
      .prepare('SELECT (SELECT coalesce(max(seq), 0) FROM products), (SELECT coalesce(max(id), 0) FROM search_changes)')
      .raw(),
    recentStores: db.prepare(
      'SELECT s.tenant_id AS tenantId, s.workspace_id AS workspaceId, s.id AS storeId FROM stores s JOIN (SELECT store_id, max(seq) AS m FROM products GROUP BY store_id) p ON p.store_id = s.id ORDER BY p.m DESC LIMIT ?',
    ),
    byHandle: db.prepare('SELECT * FROM products WHERE store_id = ? AND handle = ? COLLATE NOCASE ORDER BY seq LIMIT 1'),
    bySeq: db.prepare('SELECT * FROM products WHERE store_id = ? AND seq = ?'),
    putEmbedding: db.prepare(
      `INSERT INTO product_embeddings (product_seq, model_id, dimensions, text_sha256, embedding) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(product_seq, model_id) DO UPDATE SET dimensions = excluded.dimensions, text_sha256 = excluded.text_sha256, embedding = excluded.embedding`,
    ),
    pending: db.prepare(
      `SELECT p.seq, p.store_id, p.embed_text, p.embed_sha256 FROM products p
       LEFT JOIN product_embeddings e ON e.product_seq = p.seq AND e.model_id = @model
       WHERE (@store IS NULL OR p.store_id = @store) AND (e.text_sha256 IS NULL OR e.text_sha256 <> p.embed_sha256 OR e.dimensions <> @dims)
       ORDER BY p.seq LIMIT @limit`,
    ),
    embeddingOf: db.prepare('SELECT embedding FROM product_embeddings WHERE product_seq = ? AND model_id = ? AND dimensions = ?'),
    embeddingRowid: db.prepare('SELECT rowid AS id FROM product_embeddings WHERE product_seq = ? AND model_id = ?'),
    embeddingRowidsOfGid: db.prepare(
      'SELECT e.rowid AS id FROM product_embeddings e JOIN products p ON p.seq = e.product_seq WHERE p.store_id = ? AND p.gid = ?',
    ),
  };

  const vectors = createProductVectorIndex(db);
  const partitions = createProductVectorPartitions(db, createSearchChanges(db), budget);
  const inList = (n: number): string => Array.from({ length: n }, () => '?').join(',');
  /** Statements prepared once per SQL text; IN lists rounded up to a power of two (≥ 8), padded with -1. */
  const cache = new Map<string, Statement>();
  const prep = (sql: string): Statement => {
    let st = cache.get(sql);
    if (!st) cache.set(sql, (st = db.prepare(sql)));
    return st;
  };
  const arity = (n: number): number => Math.max(8, 2 ** Math.ceil(Math.log2(Math.max(1, n))));
  const padIn = (seqs: number[]): number[] => [...seqs, ...new Array<number>(arity(seqs.length) - seqs.length).fill(-1)];
  const changeHead = db.prepare('SELECT coalesce(max(id), 0) AS id FROM search_changes');

  const writeOne = (
    storeId: string,
    p: CatalogProductInput,
    source: ProductRow['source'],
    at: string,
    replaceCollections: boolean,
  ): number => {
    const description_text = htmlToText(p.description_html);
    const embed_text = productEmbeddingText({ ...p, description_text, variant_titles: p.variants.map((v) => v.title) });
    const total = p.total_inventory ?? p.variants.reduce((n, v) => n + (v.inventory_quantity ?? 0), 0);
    const row = {
      store_id: storeId,
      gid: p.gid,
      handle: p.handle,
      title: p.title,
      description_html: p.description_html,
      description_text,
      status: p.status,
      total_inventory: total,
      product_type: p.product_type,
      vendor: p.vendor,
      tags: JSON.stringify(p.tags),
      options: JSON.stringify(p.options),
      selling_plan_groups: JSON.stringify(p.selling_plan_groups),
      source,
      platform_updated_at: p.platform_updated_at,
      synced_at: at,
      embed_text,
      embed_sha256: sha256(embed_text),
    };
    const found = s.find.get(storeId, p.gid) as { seq: number } | undefined;
    let seq: number;
    if (found) {
      seq = found.seq;
      s.update.run({ ...row, seq });
      s.delVariants.run(seq);
      s.delImages.run(seq);
      s.delFts.run(seq);
    } else {
      seq = Number(s.insert.run(row).lastInsertRowid);
    }
    p.variants.forEach((v, i) =>
      s.insVariant.run(
        seq,
        i + 1,
        v.gid,
        v.title,
        v.price,
        v.compare_at_price,
        v.sku,
        v.available ? 1 : 0,
        v.inventory_quantity,
        v.image_url,
        JSON.stringify(v.selected_options),
      ),
    );
    p.images.forEach((im, i) => s.insImage.run(seq, i + 1, im.url, im.alt_text, im.width, im.height));
    if (replaceCollections) s.delMemberships.run(seq);
    for (const c of p.collections) {
      const handle = c.handle.toLowerCase();
      s.upsertCollection.run(storeId, handle, c.title, c.gid);
      s.addMembership.run(storeId, handle, seq);
    }
    s.insFts.run(
      seq,
      p.title,
      p.handle,
      p.vendor,
      p.product_type,
      p.tags.join(' '),
      description_text,
      p.variants.map((v) => `${v.title === 'Default Title' ? '' : v.title} ${v.sku}`).join(' '),
    );
    return seq;
  };

  return {
    /**
     * Insert or update products by (store, GID) in one transaction, replacing their variants, images and
     * FTS5 rows. `replaceCollections` (sync) makes the given collections the complete membership; file
     * imports only add memberships.
     * @returns seqs in input order
     */
    upsertMany(
      scope: StoreScope,
      products: CatalogProductInput[],
      source: ProductRow['source'],
      opts: { at: string; replaceCollections: boolean },
    ): number[] {
      return db.transaction(() => products.map((p) => writeOne(scope.storeId, p, source, opts.at, opts.replaceCollections))).immediate();
    },
    /** Delete products by GID. @returns how many existed */
    deleteByGids(scope: StoreScope, gids: string[]): number {
      return db
        .transaction(() =>
          gids.reduce((n, g) => {
            vectors.drop((s.embeddingRowidsOfGid.all(scope.storeId, g) as { id: number }[]).map((r) => r.id));
            return n + s.delByGid.run(scope.storeId, g).changes;
          }, 0),
        )
        .immediate();
    },
    gidsOfStore: (scope: StoreScope): string[] => (s.gids.all(scope.storeId) as { gid: string }[]).map((r) => r.gid),
    setSyncedAt: (scope: StoreScope, at: string): void => void s.setSyncedAt.run(at, scope.storeId),
    syncedAt: (scope: StoreScope): string | null => (s.syncedAt.get(scope.storeId) as { at: string | null } | undefined)?.at ?? null,
    syncState: (scope: StoreScope) =>
      s.syncState.get(scope.storeId) as
        { store_id: string; updated_at_mark: string | null; deletions_mark: string | null; last_full_sync_at: string | null } | undefined,
    putSyncState: (
      scope: StoreScope,
      st: { updated_at_mark: string | null; deletions_mark: string | null; last_full_sync_at: string | null },
    ): void => void s.putSyncState.run({ store_id: scope.storeId, ...st }),
    /** Snapshot bound of a new result set: rows inserted later have a higher seq. */
    maxSeq: (_scope: StoreScope): number => (s.maxSeq.get() as { m: number }).m,
    /** `maxSeq` and the change-log head in one statement (one read transaction). */
    searchSnapshot(_scope: StoreScope): { maxSeq: number; changeHead: number } {
      const [maxSeq, changeHead] = s.searchSnapshot.get() as [number, number];
      return { maxSeq, changeHead };
    },
    /** The stores holding products, newest product first, at most `limit`. */
    recentStores: (limit: number): StoreScope[] => s.recentStores.all(limit) as StoreScope[],

    /** Products by GID (any status), in the order given; missing GIDs are absent from the map. */
    byGids(scope: StoreScope, gids: string[]): Map<string, ProductRow> {
      if (gids.length === 0) return new Map();
      const rows = db
        .prepare(`SELECT * FROM products WHERE store_id = ? AND gid IN (${inList(gids.length)})`)
        .all(scope.storeId, ...gids) as ProductRow[];
      return new Map(rows.map((r) => [r.gid, r]));
    },
    byHandle: (scope: StoreScope, handle: string) => s.byHandle.get(scope.storeId, handle) as ProductRow | undefined,
    /**
     * Rows by seq, in the order given; foreign or missing seqs dropped. `+store_id` keeps the store
     * check off the indexes: without it SQLite walks the store's whole handle index (10 ms at 50k).
     */
    bySeqs(scope: StoreScope, seqs: number[]): ProductRow[] {
      if (seqs.length === 0) return [];
      const rows = prep(`SELECT * FROM products WHERE +store_id = ? AND seq IN (${inList(arity(seqs.length))})`).all(
        scope.storeId,
        ...padIn(seqs),
      ) as ProductRow[];
      const m = new Map(rows.map((r) => [r.seq, r]));
      return seqs.map((q) => m.get(q)).filter((r): r is ProductRow => r !== undefined);
    },
    /**
     * The GID and handle of products by seq (what a `list_products` page shows), foreign or missing seqs
     * absent: the row's early columns only, without materialising descriptions and embedding text.
     */
    refsBySeqs(scope: StoreScope, seqs: number[]): Map<number, { gid: string; handle: string }> {
      if (seqs.length === 0) return new Map();
      const rows = prep(`SELECT seq, gid, handle FROM products WHERE +store_id = ? AND seq IN (${inList(arity(seqs.length))})`)
        .raw()
        .all(scope.storeId, ...padIn(seqs)) as [number, string, string][];
      return new Map(rows.map(([seq, gid, handle]) => [seq, { gid, handle }]));
    },
    variantsOf: (seqs: number[]): VariantRow[] =>
      seqs.length
        ? (db
            .prepare(`SELECT * FROM product_variants WHERE product_seq IN (${inList(seqs.length)}) ORDER BY product_seq, position`)
            .all(...seqs) as VariantRow[])
        : [],
    imagesOf: (seqs: number[]): ImageRow[] =>
      seqs.length
        ? (db
            .prepare(`SELECT * FROM product_images WHERE product_seq IN (${inList(seqs.length)}) ORDER BY product_seq, position`)
            .all(...seqs) as ImageRow[])
        : [],
    collectionsOf: (seqs: number[]): { product_seq: number; handle: string }[] =>
      seqs.length
        ? (db
            .prepare(`SELECT product_seq, handle FROM collection_products WHERE product_seq IN (${inList(seqs.length)}) ORDER BY handle`)
            .all(...seqs) as { product_seq: number; handle: string }[])
        : [],

    collectionHandles: (scope: StoreScope): string[] =>
      (db.prepare('SELECT handle FROM collections WHERE store_id = ? ORDER BY handle').all(scope.storeId) as { handle: string }[]).map(
        (r) => r.handle,
      ),

    /** Highest id of the search change log (migration 0046): results computed at the same head are still current. */
    changeHead: (): number => (changeHead.get() as { id: number }).id,
    /** Browse in a stable order: title (case-insensitive), then seq. */
    browse(
      scope: StoreScope,
      f: ProductFilters,
      offset: number,
      limit: number,
    ): { rows: { seq: number; gid: string; handle: string }[]; total: number } {
      const w = productFilterSql(f);
      const base = `FROM products p WHERE p.store_id = ?${w.sql}`;
      const total = (prep(`SELECT count(*) AS n ${base}`).get(scope.storeId, ...w.params) as { n: number }).n;
      const rows = prep(`SELECT p.seq, p.gid, p.handle ${base} ORDER BY p.title COLLATE NOCASE, p.seq LIMIT ? OFFSET ?`).all(
        scope.storeId,
        ...w.params,
        limit,
        offset,
      ) as { seq: number; gid: string; handle: string }[];
      return { rows, total };
    },

    /**
     * The `k` products nearest to `query` by cosine distance among the store's vectors of one model that
     * pass the list filters (applied during the scan), nearest first: the int8 scan with exact re-rank
     * over in-memory partitions of `product_embeddings` (db/sqlite/product-vector-index.ts). Zero vectors are
     * never neighbours. `head`: the change-log head read for this request (read here when absent).
     * @returns seqs with distance (0 = same direction)
     */
    knn: (
      scope: StoreScope,
      modelId: string,
      query: Float32Array,
      f: ProductFilters,
      k: number,
      head?: number,
    ): { seq: number; distance: number }[] => partitions.nearest(scope, modelId, query, f, k, head),
    /** Products of a store with a vector under a model, as of `head` as for `knn`. */
    embeddingCount: (scope: StoreScope, modelId: string, dims: number, head?: number): number =>
      partitions.count(scope, modelId, dims, head),
    /**
     * Up to `limit` embedded products of a store (vector and embedded text) in a fixed pseudo-random
     * order (Knuth's multiplicative hash of the seq), for calibration.
     */
    embeddingSample(
      scope: StoreScope,
      modelId: string,
      dims: number,
      limit: number,
    ): { seq: number; text: string; vector: Float32Array }[] {
      const rows = db
        .prepare(
          `SELECT p.seq, p.embed_text AS text, e.embedding FROM product_embeddings e JOIN products p ON p.seq = e.product_seq
          WHERE p.store_id = ? AND e.model_id = ? AND e.dimensions = ? ORDER BY (p.seq * 2654435761) % 4294967296 LIMIT ?`,
        )
        .all(scope.storeId, modelId, dims, limit) as { seq: number; text: string; embedding: Buffer }[];
      return rows.map((r) => ({
        seq: r.seq,
        text: r.text,
        vector: new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength)),
      }));
    },
    /** Stored vector of one product under a model (null when not embedded yet). */
    embeddingOf(seq: number, modelId: string, dims: number): Float32Array | null {
      const r = s.embeddingOf.get(seq, modelId, dims) as { embedding: Buffer } | undefined;
      if (!r) return null;
      // Copy into a fresh ArrayBuffer: a Buffer's byteOffset need not be 4-aligned.
      return new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength));
    },
    /**
     * Related products without embeddings: score = 3 × shared collections + 2 × same product type + shared tags,
     * only products sharing something; ties by title.
     */
    relatedByAttributes(scope: StoreScope, source: ProductRow, f: ProductFilters, k: number): number[] {
      const w = productFilterSql(f);
      return (
        db
          .prepare(
            `SELECT p.seq,
            3 * (SELECT count(*) FROM collection_products a JOIN collection_products b ON a.handle = b.handle AND a.store_id = b.store_id
                 WHERE a.product_seq = ? AND b.product_seq = p.seq)
          + 2 * (p.product_type <> '' AND p.product_type = ? COLLATE NOCASE)
          + (SELECT count(*) FROM json_each(p.tags) t WHERE lower(t.value) IN (SELECT lower(value) FROM json_each(?))) AS score
        FROM products p WHERE p.store_id = ?${w.sql} AND score > 0 ORDER BY score DESC, p.title COLLATE NOCASE, p.seq LIMIT ?`,
          )
          .all(source.seq, source.product_type, source.tags, scope.storeId, ...w.params, k) as { seq: number }[]
      ).map((r) => r.seq);
    },

    /** Products (of one store, or all when null) whose embedding under `modelId` is missing or stale, oldest first. */
    pendingEmbeddings(
      storeId: string | null,
      modelId: string,
      dims: number,
      limit: number,
    ): { seq: number; store_id: string; embed_text: string; embed_sha256: string }[] {
      return s.pending.all({ store: storeId, model: modelId, dims, limit }) as {
        seq: number;
        store_id: string;
        embed_text: string;
        embed_sha256: string;
      }[];
    },
    /** Store vectors (one transaction). */
    putEmbeddings(modelId: string, rows: { seq: number; storeId: string; sha256: string; vector: Float32Array }[]): void {
      db.transaction(() => {
        for (const r of rows) {
          s.putEmbedding.run(r.seq, modelId, r.vector.length, r.sha256, f32Blob(r.vector));
          vectors.put((s.embeddingRowid.get(r.seq, modelId) as { id: number }).id, r.storeId, modelId, r.vector);
        }
      }).immediate();
    },
  };
}
export type ProductQueries = ReturnType<typeof createProductQueries>;
