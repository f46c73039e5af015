import { createHash } from 'node:crypto';
import { htmlToText, productEmbeddingText, type CatalogProductInput } from '../../domain/catalog.ts';
import type { ImageRow, ProductFilters, ProductRow, ProductStore, VariantRow } from '../ports/product-store.ts';
import { inTransaction, isoOf, type PgClient, type PgPool } from './pool.ts';
import { productLexicalVector } from './product-lexicon.ts';

/** A `products` row as node-postgres returns it: lists and objects are JSON text columns (migration 0007), `synced_at` a timestamptz. */
type ProductColumns = Omit<ProductRow, 'tags' | 'options' | 'selling_plan_groups' | 'synced_at'> & {
  tags: string;
  options: string;
  selling_plan_groups: string;
  synced_at: Date;
};
/** A `product_variants` row as node-postgres returns it: `available` smallint 0/1, `selected_options` JSON text. */
type VariantColumns = Omit<VariantRow, 'available' | 'selected_options'> & { available: number; selected_options: string };

/** Every column of `products` but the lexical vector: the port's row. */
const COLUMNS = `seq, store_id, gid, handle, title, description_html, description_text, status, total_inventory, product_type, vendor,
  tags, options, selling_plan_groups, source, platform_updated_at, synced_at, embed_text, embed_sha256`;
const VARIANT =
  'product_seq, position, gid, title, price, compare_at_price, sku, available, inventory_quantity, image_url, selected_options';
const IMAGE = 'product_seq, position, url, alt_text, width, height';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const toRow = (r: ProductColumns): ProductRow => ({
  ...r,
  tags: JSON.parse(r.tags) as ProductRow['tags'],
  options: JSON.parse(r.options) as ProductRow['options'],
  selling_plan_groups: JSON.parse(r.selling_plan_groups) as ProductRow['selling_plan_groups'],
  synced_at: isoOf(r.synced_at)!,
});
const toVariant = (r: VariantColumns): VariantRow => ({
  ...r,
  available: r.available === 1,
  selected_options: JSON.parse(r.selected_options) as VariantRow['selected_options'],
});

/**
 * SQL conditions (` AND …`) and parameters of `list_products` filters on `${alias}`, numbered from
 * `$first`: the PostgreSQL twin of `productFilterSql` (server/db/sqlite/product-rows.ts). Product types compare
 * ASCII case-insensitively (lower() of a "C" value, as SQLite's NOCASE).
 */
export function pgProductFilterSql(f: ProductFilters, first: number, alias = 'p'): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (cond: (p: string) => string, v: unknown): void => {
    params.push(v);
    parts.push(cond(`$${first + params.length - 1}`));
  };
  add((p) => `${alias}.status = ANY(${p}::text[])`, f.statuses);
  if (f.collection)
    add(
      (p) =>
        `EXISTS (SELECT 1 FROM collection_products cp WHERE cp.store_id = ${alias}.store_id AND cp.handle = ${p} AND cp.product_seq = ${alias}.seq)`,
      f.collection.toLowerCase(),
    );
  if (f.productType) add((p) => `lower(${alias}.product_type) = lower(${p}::text COLLATE "C")`, f.productType);
  if (f.maxSeq !== undefined) add((p) => `${alias}.seq <= ${p}`, f.maxSeq);
  if (f.excludeSeq !== undefined) add((p) => `${alias}.seq <> ${p}`, f.excludeSeq);
  return { sql: ` AND ${parts.join(' AND ')}`, params };
}

/** The row values of one product as the SQLite writer derives them (db/sqlite/products.ts `productColumns`). */
function rowValues(storeId: string, p: CatalogProductInput, source: ProductRow['source'], at: string): unknown[] {
  const description_text = htmlToText(p.description_html);
  const embed_text = productEmbeddingText({ ...p, description_text, variant_titles: p.variants.map((v) => v.title) });
  const total = p.total_inventory ?? p.variants.reduce((n, v) => n + (v.inventory_quantity ?? 0), 0);
  const variantsText = p.variants.map((v) => `${v.title === 'Default Title' ? '' : v.title} ${v.sku}`).join(' ');
  return [
    storeId,
    p.gid,
    p.handle,
    p.title,
    p.description_html,
    description_text,
    p.status,
    total,
    p.product_type,
    p.vendor,
    JSON.stringify(p.tags),
    JSON.stringify(p.options),
    JSON.stringify(p.selling_plan_groups),
    source,
    p.platform_updated_at,
    at,
    embed_text,
    sha256(embed_text),
    productLexicalVector({
      title: p.title,
      handle: p.handle,
      vendor: p.vendor,
      product_type: p.product_type,
      tags: p.tags.join(' '),
      description: description_text,
      variants: variantsText,
    }),
  ];
}

const UPSERT = `INSERT INTO products (store_id, gid, handle, title, description_html, description_text, status, total_inventory, product_type,
    vendor, tags, options, selling_plan_groups, source, platform_updated_at, synced_at, embed_text, embed_sha256, lexical_vector)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19::tsvector)
  ON CONFLICT (store_id, gid) DO UPDATE SET handle = excluded.handle, title = excluded.title, description_html = excluded.description_html,
    description_text = excluded.description_text, status = excluded.status, total_inventory = excluded.total_inventory,
    product_type = excluded.product_type, vendor = excluded.vendor, tags = excluded.tags, options = excluded.options,
    selling_plan_groups = excluded.selling_plan_groups, source = excluded.source, platform_updated_at = excluded.platform_updated_at,
    synced_at = excluded.synced_at, embed_text = excluded.embed_text, embed_sha256 = excluded.embed_sha256,
    lexical_vector = excluded.lexical_vector
  RETURNING seq`;

/**
 * Write one batch: each product's row (upsert by store and GID), then variants, images, collections
 * and memberships of the whole batch in a few set-based statements. A GID repeated in the batch ends
 * as its last occurrence, as sequential writes would leave it.
 */
async function writeBatch(
  c: PgClient,
  storeId: string,
  products: CatalogProductInput[],
  source: ProductRow['source'],
  opts: { at: string; replaceCollections: boolean },
): Promise<number[]> {
  // the store's row lock orders this store's seqs by commit (a snapshot's max(seq) is never overtaken)
  await c.query('SELECT 1 FROM stores WHERE id = $1 FOR NO KEY UPDATE', [storeId]);
  const seqs: number[] = [];
  for (const p of products) seqs.push((await c.query<{ seq: number }>(UPSERT, rowValues(storeId, p, source, opts.at))).rows[0]!.seq);
  const last = new Map<number, CatalogProductInput>();
  products.forEach((p, i) => last.set(seqs[i]!, p));
  const all = [...last.keys()];
  await c.query('DELETE FROM product_variants WHERE product_seq = ANY($1::bigint[])', [all]);
  await c.query('DELETE FROM product_images WHERE product_seq = ANY($1::bigint[])', [all]);
  const v = [...last].flatMap(([seq, p]) => p.variants.map((x, i) => ({ seq, i: i + 1, x })));
  if (v.length)
    await c.query(
      `INSERT INTO product_variants (${VARIANT})
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::smallint[], $9::bigint[], $10::text[], $11::text[])`,
      [
        v.map((r) => r.seq),
        v.map((r) => r.i),
        v.map((r) => r.x.gid),
        v.map((r) => r.x.title),
        v.map((r) => r.x.price),
        v.map((r) => r.x.compare_at_price),
        v.map((r) => r.x.sku),
        v.map((r) => (r.x.available ? 1 : 0)),
        v.map((r) => r.x.inventory_quantity),
        v.map((r) => r.x.image_url),
        v.map((r) => JSON.stringify(r.x.selected_options)),
      ],
    );
  const im = [...last].flatMap(([seq, p]) => p.images.map((x, i) => ({ seq, i: i + 1, x })));
  if (im.length)
    await c.query(
      `INSERT INTO product_images (${IMAGE}) SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::int[], $6::int[])`,
      [
        im.map((r) => r.seq),
        im.map((r) => r.i),
        im.map((r) => r.x.url),
        im.map((r) => r.x.alt_text),
        im.map((r) => r.x.width),
        im.map((r) => r.x.height),
      ],
    );
  // collections by handle: the last title, the last GID given (an earlier one when null), as sequential upserts leave them
  const cols = new Map<string, { title: string; gid: string | null }>();
  for (const p of products)
    for (const col of p.collections) {
      const h = col.handle.toLowerCase();
      cols.set(h, { title: col.title, gid: col.gid ?? cols.get(h)?.gid ?? null });
    }
  if (cols.size)
    await c.query(
      `INSERT INTO collections (store_id, handle, title, gid) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])
       ON CONFLICT (store_id, handle) DO UPDATE SET title = excluded.title, gid = coalesce(excluded.gid, collections.gid)`,
      [storeId, [...cols.keys()], [...cols.values()].map((x) => x.title), [...cols.values()].map((x) => x.gid)],
    );
  if (opts.replaceCollections) await c.query('DELETE FROM collection_products WHERE product_seq = ANY($1::bigint[])', [all]);
  // sync: the last occurrence's collections are the membership; file imports add every occurrence's
  const members = opts.replaceCollections
    ? [...last].flatMap(([seq, p]) => p.collections.map((col) => ({ seq, h: col.handle.toLowerCase() })))
    : products.flatMap((p, i) => p.collections.map((col) => ({ seq: seqs[i]!, h: col.handle.toLowerCase() })));
  if (members.length)
    await c.query(
      `INSERT INTO collection_products (store_id, handle, product_seq) SELECT $1, * FROM unnest($2::text[], $3::bigint[]) ON CONFLICT DO NOTHING`,
      [storeId, members.map((m) => m.h), members.map((m) => m.seq)],
    );
  return seqs;
}

/**
 * The PostgreSQL `ProductStore` (tables of postgres/migrations/0007). Every write carries the row's
 * lexical vector (product-lexicon.ts: title, handle, tags, type, vendor, variant titles and SKUs,
 * description), as the SQLite writer fills products_fts in the same transaction. Lists and objects are
 * JSON text columns (`toRow` and `toVariant` parse them; `relatedByAttributes` reads `tags` as jsonb),
 * `available` is a smallint 0/1 and `synced_at` a timestamptz read back as ISO 8601 UTC with ms.
 */
export function createPgProductStore(pool: PgPool): ProductStore {
  const rows = async (sql: string, params: unknown[]): Promise<ProductRow[]> =>
    (await pool.query<ProductColumns>(sql, params)).rows.map(toRow);
  return {
    upsertMany: (scope, products, source, opts) =>
      products.length === 0 ? Promise.resolve([]) : inTransaction(pool, (c) => writeBatch(c, scope.storeId, products, source, opts)),
    async deleteByGids(scope, gids) {
      if (gids.length === 0) return 0;
      // the store's row first, as writeBatch takes it: a delete locking product rows and then the store's
      // count row (migration 0012) could otherwise deadlock with a batch that holds the count row and
      // then upserts one of those products
      return inTransaction(pool, async (c) => {
        await c.query('SELECT 1 FROM stores WHERE id = $1 FOR NO KEY UPDATE', [scope.storeId]);
        const r = await c.query('DELETE FROM products WHERE store_id = $1 AND gid = ANY($2::text[])', [scope.storeId, gids]);
        return r.rowCount ?? 0;
      });
    },
    async gidsOfStore(scope) {
      return (await pool.query<{ gid: string }>('SELECT gid FROM products WHERE store_id = $1', [scope.storeId])).rows.map((r) => r.gid);
    },
    async setSyncedAt(scope, at) {
      await pool.query('UPDATE stores SET catalog_synced_at = $1 WHERE id = $2', [at, scope.storeId]);
    },
    async syncedAt(scope) {
      const r = await pool.query<{ at: Date | null }>('SELECT catalog_synced_at AS at FROM stores WHERE id = $1', [scope.storeId]);
      return isoOf(r.rows[0]?.at ?? null);
    },
    async syncState(scope) {
      const r = await pool.query<{ updated_at_mark: string | null; deletions_mark: string | null; last_full_sync_at: string | null }>(
        'SELECT updated_at_mark, deletions_mark, last_full_sync_at FROM catalog_sync_state WHERE store_id = $1',
        [scope.storeId],
      );
      return r.rows[0];
    },
    async putSyncState(scope, st) {
      await pool.query(
        `INSERT INTO catalog_sync_state (store_id, updated_at_mark, deletions_mark, last_full_sync_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (store_id) DO UPDATE SET updated_at_mark = excluded.updated_at_mark, deletions_mark = excluded.deletions_mark,
           last_full_sync_at = coalesce(excluded.last_full_sync_at, catalog_sync_state.last_full_sync_at)`,
        [scope.storeId, st.updated_at_mark, st.deletions_mark, st.last_full_sync_at],
      );
    },
    async maxSeq(scope) {
      return (await pool.query<{ m: number }>('SELECT coalesce(max(seq), 0) AS m FROM products WHERE store_id = $1', [scope.storeId]))
        .rows[0]!.m;
    },
    async recentStores(limit) {
      const r = await pool.query<{ tenantId: string; workspaceId: string; storeId: string }>(
        'SELECT s.tenant_id AS "tenantId", s.workspace_id AS "workspaceId", s.id AS "storeId" FROM stores s JOIN (SELECT store_id, max(seq) AS m FROM products GROUP BY store_id) p ON p.store_id = s.id ORDER BY p.m DESC LIMIT $1',
        [limit],
      );
      return r.rows.map((x) => ({ tenantId: x.tenantId, workspaceId: x.workspaceId, storeId: x.storeId }));
    },
    async byGids(scope, gids) {
      if (gids.length === 0) return new Map();
      const found = await rows(`SELECT ${COLUMNS} FROM products WHERE store_id = $1 AND gid = ANY($2::text[])`, [scope.storeId, gids]);
      return new Map(found.map((r) => [r.gid, r]));
    },
    async byHandle(scope, handle) {
      const found = await rows(
        `SELECT ${COLUMNS} FROM products WHERE store_id = $1 AND lower(handle) = lower($2::text COLLATE "C") ORDER BY seq LIMIT 1`,
        [scope.storeId, handle],
      );
      return found[0];
    },
    async bySeqs(scope, seqs) {
      if (seqs.length === 0) return [];
      const found = await rows(`SELECT ${COLUMNS} FROM products WHERE store_id = $1 AND seq = ANY($2::bigint[])`, [scope.storeId, seqs]);
      const m = new Map(found.map((r) => [r.seq, r]));
      return seqs.map((q) => m.get(q)).filter((r): r is ProductRow => r !== undefined);
    },
    async refsBySeqs(scope, seqs) {
      if (seqs.length === 0) return new Map();
      const r = await pool.query<{ seq: number; gid: string; handle: string }>(
        'SELECT seq, gid, handle FROM products WHERE store_id = $1 AND seq = ANY($2::bigint[])',
        [scope.storeId, seqs],
      );
      return new Map(r.rows.map((x) => [x.seq, { gid: x.gid, handle: x.handle }]));
    },
    async variantsOf(seqs) {
      if (seqs.length === 0) return [];
      return (
        await pool.query<VariantColumns>(
          `SELECT ${VARIANT} FROM product_variants WHERE product_seq = ANY($1::bigint[]) ORDER BY product_seq, position`,
          [seqs],
        )
      ).rows.map(toVariant);
    },
    async imagesOf(seqs) {
      if (seqs.length === 0) return [];
      return (
        await pool.query<ImageRow>(
          `SELECT ${IMAGE} FROM product_images WHERE product_seq = ANY($1::bigint[]) ORDER BY product_seq, position`,
          [seqs],
        )
      ).rows;
    },
    async collectionsOf(seqs) {
      if (seqs.length === 0) return [];
      return (
        await pool.query<{ product_seq: number; handle: string }>(
          'SELECT product_seq, handle FROM collection_products WHERE product_seq = ANY($1::bigint[]) ORDER BY handle, product_seq',
          [seqs],
        )
      ).rows;
    },
    async collectionHandles(scope) {
      return (
        await pool.query<{ handle: string }>('SELECT handle FROM collections WHERE store_id = $1 ORDER BY handle COLLATE "C"', [
          scope.storeId,
        ])
      ).rows.map((r) => r.handle);
    },
    async changeHead() {
      return (await pool.query<{ id: number }>('SELECT coalesce(max(id), 0) AS id FROM search_changes')).rows[0]!.id;
    },
    async searchSnapshot(scope) {
      const r = await pool.query<{ m: number; h: number }>(
        'SELECT (SELECT coalesce(max(seq), 0) FROM products WHERE store_id = $1) AS m, (SELECT coalesce(max(id), 0) FROM search_changes) AS h',
        [scope.storeId],
      );
      return { maxSeq: Number(r.rows[0]!.m), changeHead: Number(r.rows[0]!.h) };
    },
    async browse(scope, f, offset, limit) {
      const w = pgProductFilterSql(f, 2);
      const base = `FROM products p WHERE p.store_id = $1${w.sql}`;
      const params = [scope.storeId, ...w.params];
      const total = (await pool.query<{ n: number }>(`SELECT count(*) AS n ${base}`, params)).rows[0]!.n;
      const n = params.length;
      const page = await pool.query<{ seq: number; gid: string; handle: string }>(
        `SELECT p.seq, p.gid, p.handle ${base} ORDER BY lower(p.title), p.seq LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, limit, offset],
      );
      return { rows: page.rows, total };
    },
    async relatedByAttributes(scope, source, f, k) {
      const w = pgProductFilterSql(f, 5);
      // lower() of "C" values folds ASCII only, as SQLite's lower() and NOCASE
      const r = await pool.query<{ seq: number }>(
        `SELECT seq FROM (
           SELECT p.seq, p.title,
             3 * (SELECT count(*) FROM collection_products a JOIN collection_products b ON a.handle = b.handle AND a.store_id = b.store_id
                  WHERE a.product_seq = $2 AND b.product_seq = p.seq)
           + 2 * (p.product_type <> '' AND lower(p.product_type) = lower($3::text COLLATE "C"))::int
           + (SELECT count(*) FROM jsonb_array_elements_text(p.tags::jsonb) t
              WHERE lower(t COLLATE "C") IN (SELECT lower(s COLLATE "C") FROM jsonb_array_elements_text($4::jsonb) s)) AS score
           FROM products p WHERE p.store_id = $1${w.sql}
         ) x WHERE score > 0 ORDER BY score DESC, lower(title), seq LIMIT $${5 + w.params.length}`,
        [scope.storeId, source.seq, source.product_type, JSON.stringify(source.tags), ...w.params, k],
      );
      return r.rows.map((x) => x.seq);
    },
  };
}
