import { createHash } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import { htmlToText, productEmbeddingText, type CatalogProductInput } from '../../domain/catalog.ts';
import type { CatalogSyncState, ImageRow, ProductRef, ProductRow, ProductStore, StoreScope } from '../ports/product-store.ts';
import { productFilterSql, productRowOf, variantRowOf, type ProductColumns, type VariantColumns } from './product-rows.ts';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** `?` placeholders for `n` values. */
const inList = (n: number): string => Array.from({ length: n }, () => '?').join(',');

/**
 * Statements prepared once per SQL text, for the hot reads. IN lists of seqs are rounded up to a power
 * of two (≥ 8) and padded with -1 (no seq), so a page of any size reuses one of a few statements.
 */
function statementCache(db: Database) {
  const cache = new Map<string, Statement>();
  const arity = (n: number): number => Math.max(8, 2 ** Math.ceil(Math.log2(Math.max(1, n))));
  return {
    prep(sql: string): Statement {
      let st = cache.get(sql);
      if (!st) cache.set(sql, (st = db.prepare(sql)));
      return st;
    },
    /** the padded placeholders and values of an IN list of seqs */
    padded(seqs: number[]): { list: string; values: number[] } {
      const n = arity(seqs.length);
      return { list: inList(n), values: [...seqs, ...new Array<number>(n - seqs.length).fill(-1)] };
    },
  };
}
type StatementCache = ReturnType<typeof statementCache>;

/** The `products` columns of one product, derived as postgres/products.ts `rowValues` derives them; lists and objects as JSON text. */
function productColumns(storeId: string, p: CatalogProductInput, source: ProductRow['source'], at: string) {
  const description_text = htmlToText(p.description_html);
  const embed_text = productEmbeddingText({ ...p, description_text, variant_titles: p.variants.map((v) => v.title) });
  return {
    store_id: storeId,
    gid: p.gid,
    handle: p.handle,
    title: p.title,
    description_html: p.description_html,
    description_text,
    status: p.status,
    total_inventory: p.total_inventory ?? p.variants.reduce((n, v) => n + (v.inventory_quantity ?? 0), 0),
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
}

/** The statements of the writes, prepared once. */
function writeStatements(db: Database) {
  return {
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
  };
}

/**
 * The writes: a product's row, variants, images, memberships and FTS5 row (products_fts, migration 0002,
 * written here because its text spans the variants), and deletions (embeddings, variants, images and
 * memberships go by foreign-key cascade).
 */
function productWrites(db: Database): Pick<ProductStore, 'upsertMany' | 'deleteByGids'> {
  const s = writeStatements(db);
  const writeOne = (
    storeId: string,
    p: CatalogProductInput,
    source: ProductRow['source'],
    at: string,
    replaceCollections: boolean,
  ): number => {
    const row = productColumns(storeId, p, source, at);
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
    const variantsText = p.variants.map((v) => `${v.title === 'Default Title' ? '' : v.title} ${v.sku}`).join(' ');
    s.insFts.run(seq, p.title, p.handle, p.vendor, p.product_type, p.tags.join(' '), row.description_text, variantsText);
    return seq;
  };

  return {
    // better-sqlite3 is synchronous: each method does its work before it returns its promise. Inside a
    // transaction the caller opened, these nest as savepoints.
    upsertMany: async (scope, products, source, opts) =>
      db.transaction(() => products.map((p) => writeOne(scope.storeId, p, source, opts.at, opts.replaceCollections))).immediate(),
    deleteByGids: async (scope, gids) =>
      db.transaction(() => gids.reduce((n, g) => n + s.delByGid.run(scope.storeId, g).changes, 0)).immediate(),
  };
}

/** The store's marks: its GIDs, `catalog_synced_at`, the incremental sync marks, snapshot bounds and the change-log head. */
function storeMarks(
  db: Database,
): Pick<
  ProductStore,
  'gidsOfStore' | 'setSyncedAt' | 'syncedAt' | 'syncState' | 'putSyncState' | 'maxSeq' | 'recentStores' | 'changeHead' | 'searchSnapshot'
> {
  const s = {
    gids: db.prepare('SELECT gid FROM products WHERE store_id = ?').pluck(),
    setSyncedAt: db.prepare('UPDATE stores SET catalog_synced_at = ? WHERE id = ?'),
    syncedAt: db.prepare('SELECT catalog_synced_at FROM stores WHERE id = ?').pluck(),
    syncState: db.prepare('SELECT updated_at_mark, deletions_mark, last_full_sync_at FROM catalog_sync_state WHERE store_id = ?'),
    putSyncState: db.prepare(
      `INSERT INTO catalog_sync_state (store_id, updated_at_mark, deletions_mark, last_full_sync_at) VALUES (@store_id, @updated_at_mark, @deletions_mark, @last_full_sync_at)
       ON CONFLICT(store_id) DO UPDATE SET updated_at_mark = excluded.updated_at_mark, deletions_mark = excluded.deletions_mark,
         last_full_sync_at = coalesce(excluded.last_full_sync_at, catalog_sync_state.last_full_sync_at)`,
    ),
    // Global max(seq) is one B-tree seek; a per-store max would scan the store's rows. Either bounds a snapshot.
    maxSeq: db.prepare('SELECT coalesce(max(seq), 0) FROM products').pluck(),
    searchSnapshot: db
      .prepare('SELECT (SELECT coalesce(max(seq), 0) FROM products), (SELECT coalesce(max(id), 0) FROM search_changes)')
      .raw(),
    recentStores: db.prepare(
      'SELECT s.tenant_id AS tenantId, s.workspace_id AS workspaceId, s.id AS storeId FROM stores s JOIN (SELECT store_id, max(seq) AS m FROM products GROUP BY store_id) p ON p.store_id = s.id ORDER BY p.m DESC LIMIT ?',
    ),
    changeHead: db.prepare('SELECT coalesce(max(id), 0) FROM search_changes').pluck(),
  };
  return {
    gidsOfStore: async (scope) => s.gids.all(scope.storeId) as string[],
    setSyncedAt: async (scope, at) => void s.setSyncedAt.run(at, scope.storeId),
    syncedAt: async (scope) => (s.syncedAt.get(scope.storeId) as string | null | undefined) ?? null,
    syncState: async (scope) => s.syncState.get(scope.storeId) as CatalogSyncState | undefined,
    putSyncState: async (scope, st) => void s.putSyncState.run({ store_id: scope.storeId, ...st }),
    maxSeq: async () => s.maxSeq.get() as number,
    recentStores: async (limit) => s.recentStores.all(limit) as StoreScope[],
    changeHead: async () => s.changeHead.get() as number,
    // one statement: one read transaction for both
    async searchSnapshot() {
      const [maxSeq, changeHead] = s.searchSnapshot.get() as [number, number];
      return { maxSeq, changeHead };
    },
  };
}

/** Rows by GID, handle or seq, and what hangs off them (variants, images, memberships). */
function productReads(
  db: Database,
  c: StatementCache,
): Pick<ProductStore, 'byGids' | 'byHandle' | 'bySeqs' | 'refsBySeqs' | 'variantsOf' | 'imagesOf' | 'collectionsOf' | 'collectionHandles'> {
  const byHandle = db.prepare('SELECT * FROM products WHERE store_id = ? AND handle = ? COLLATE NOCASE ORDER BY seq LIMIT 1');
  // lists of any length (a sync's stale GIDs): prepared per call, not cached
  const all = <T>(sql: string, params: unknown[]): T[] => db.prepare(sql).all(...params) as T[];
  return {
    async byGids(scope, gids) {
      if (gids.length === 0) return new Map();
      const rows = all<ProductColumns>(`SELECT * FROM products WHERE store_id = ? AND gid IN (${inList(gids.length)})`, [
        scope.storeId,
        ...gids,
      ]);
      return new Map(rows.map((r) => [r.gid, productRowOf(r)]));
    },
    async byHandle(scope, handle) {
      const r = byHandle.get(scope.storeId, handle) as ProductColumns | undefined;
      return r && productRowOf(r);
    },
    // `+store_id` keeps the store check off the indexes: without it SQLite walks the store's whole handle index (10 ms at 50k)
    async bySeqs(scope, seqs) {
      if (seqs.length === 0) return [];
      const { list, values } = c.padded(seqs);
      const rows = c.prep(`SELECT * FROM products WHERE +store_id = ? AND seq IN (${list})`).all(scope.storeId, ...values);
      const m = new Map((rows as ProductColumns[]).map((r) => [r.seq, r]));
      return seqs.flatMap((q) => {
        const r = m.get(q);
        return r ? [productRowOf(r)] : [];
      });
    },
    // the row's early columns only, without materialising descriptions and embedding text
    async refsBySeqs(scope, seqs) {
      if (seqs.length === 0) return new Map();
      const { list, values } = c.padded(seqs);
      const rows = c
        .prep(`SELECT seq, gid, handle FROM products WHERE +store_id = ? AND seq IN (${list})`)
        .raw()
        .all(scope.storeId, ...values) as [number, string, string][];
      return new Map(rows.map(([seq, gid, handle]): [number, ProductRef] => [seq, { gid, handle }]));
    },
    variantsOf: async (seqs) =>
      seqs.length === 0
        ? []
        : all<VariantColumns>(
            `SELECT * FROM product_variants WHERE product_seq IN (${inList(seqs.length)}) ORDER BY product_seq, position`,
            seqs,
          ).map(variantRowOf),
    imagesOf: async (seqs) =>
      seqs.length === 0
        ? []
        : all<ImageRow>(`SELECT * FROM product_images WHERE product_seq IN (${inList(seqs.length)}) ORDER BY product_seq, position`, seqs),
    collectionsOf: async (seqs) =>
      seqs.length === 0
        ? []
        : all<{ product_seq: number; handle: string }>(
            `SELECT product_seq, handle FROM collection_products WHERE product_seq IN (${inList(seqs.length)}) ORDER BY handle`,
            seqs,
          ),
    collectionHandles: async (scope) =>
      all<{ handle: string }>('SELECT handle FROM collections WHERE store_id = ? ORDER BY handle', [scope.storeId]).map((r) => r.handle),
  };
}

/** Browse pages and related products by attributes, under the `list_products` filters. */
function productListing(db: Database, c: StatementCache): Pick<ProductStore, 'browse' | 'relatedByAttributes'> {
  return {
    async browse(scope, f, offset, limit) {
      const w = productFilterSql(f);
      const base = `FROM products p WHERE p.store_id = ?${w.sql}`;
      const total = (c.prep(`SELECT count(*) AS n ${base}`).get(scope.storeId, ...w.params) as { n: number }).n;
      const rows = c
        .prep(`SELECT p.seq, p.gid, p.handle ${base} ORDER BY p.title COLLATE NOCASE, p.seq LIMIT ? OFFSET ?`)
        .all(scope.storeId, ...w.params, limit, offset) as ({ seq: number } & ProductRef)[];
      return { rows, total };
    },
    async relatedByAttributes(scope, source, f, k) {
      const w = productFilterSql(f);
      const rows = db
        .prepare(
          `SELECT p.seq,
            3 * (SELECT count(*) FROM collection_products a JOIN collection_products b ON a.handle = b.handle AND a.store_id = b.store_id
                 WHERE a.product_seq = ? AND b.product_seq = p.seq)
          + 2 * (p.product_type <> '' AND p.product_type = ? COLLATE NOCASE)
          + (SELECT count(*) FROM json_each(p.tags) t WHERE lower(t.value) IN (SELECT lower(value) FROM json_each(?))) AS score
        FROM products p WHERE p.store_id = ?${w.sql} AND score > 0 ORDER BY score DESC, p.title COLLATE NOCASE, p.seq LIMIT ?`,
        )
        .all(source.seq, source.product_type, JSON.stringify(source.tags), scope.storeId, ...w.params, k) as { seq: number }[];
      return rows.map((r) => r.seq);
    },
  };
}

/**
 * The SQLite `ProductStore` (tables of migrations 0002, 0011, 0046, 0047): products with their
 * variants, images, collection memberships and FTS5 rows, the sync marks and `catalog_synced_at`. Lists
 * and objects are JSON text in their columns and `available` is 0/1 (product-rows.ts converts them).
 * better-sqlite3 is synchronous: each method does its work before it returns its promise, and the
 * writes' transactions nest as savepoints inside one the caller opened (`BEGIN` … `COMMIT` around many
 * `upsertMany` calls, for bulk loads).
 */
export function createSqliteProductStore(db: Database): ProductStore {
  const c = statementCache(db);
  return { ...productWrites(db), ...storeMarks(db), ...productReads(db, c), ...productListing(db, c) };
}
