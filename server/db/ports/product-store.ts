import type { ProductStatus } from '../../../shared/schemas/product.ts';
import type { CatalogProductInput } from '../../domain/catalog.ts';
import type { Scope } from '../../domain/scope.ts';

/** Scope of every catalog query: tenant, workspace and the store resolved by `storeScopeFor` (rule 8). */
export type StoreScope = Scope & { storeId: string };

/** A product option (Size, Colour, …) with its values, in platform order. */
export type ProductOption = CatalogProductInput['options'][number];
/** The option value a variant has for one option, e.g. `{ name: 'Size', value: '40' }`. */
export type SelectedOption = CatalogProductInput['variants'][number]['selected_options'][number];

/** A product as stored: the input's own fields as written, plus what the writer derived (seq, texts, hash, time). */
export interface ProductRow {
  seq: number;
  store_id: string;
  gid: string;
  handle: string;
  title: string;
  description_html: string;
  /** `description_html` as plain text (domain/catalog.ts `htmlToText`) */
  description_text: string;
  status: ProductStatus;
  /** the platform's total, or the sum of the variants' quantities when it gave none */
  total_inventory: number;
  product_type: string;
  vendor: string;
  /** platform order */
  tags: string[];
  options: ProductOption[];
  /** as the platform gives them (snake_case keys), exactly as written */
  selling_plan_groups: CatalogProductInput['selling_plan_groups'];
  source: 'sync' | 'csv' | 'json';
  /** the platform's `updatedAt` exactly as given (ISO 8601), null for CSV imports */
  platform_updated_at: string | null;
  /** when the row was last written: ISO 8601 UTC with ms (`upsertMany` `opts.at`) */
  synced_at: string;
  /** the text the product is embedded from (domain/catalog.ts `productEmbeddingText`) */
  embed_text: string;
  /** sha256 hex of `embed_text` */
  embed_sha256: string;
}

/** A variant of a product; `position` counts from 1 in input order. */
export interface VariantRow {
  product_seq: number;
  position: number;
  gid: string;
  title: string;
  /** decimal string exactly as the source wrote it (never a float) */
  price: string;
  /** decimal string like `price`, or null */
  compare_at_price: string | null;
  sku: string;
  available: boolean;
  inventory_quantity: number | null;
  image_url: string | null;
  selected_options: SelectedOption[];
}

/** An image of a product; `position` counts from 1 in input order. */
export interface ImageRow {
  product_seq: number;
  position: number;
  url: string;
  alt_text: string;
  /** px; null when the source did not say */
  width: number | null;
  height: number | null;
}

/** Filters of `list_products`; `maxSeq` is the cursor's snapshot bound. */
export interface ProductFilters {
  statuses: ProductStatus[];
  collection?: string | undefined;
  productType?: string | undefined;
  maxSeq?: number | undefined;
  excludeSeq?: number | undefined;
}

/** Incremental sync marks of a store (platform strings, kept exactly as given). */
export interface CatalogSyncState {
  /** newest platform `updatedAt` seen (ISO 8601 as the platform wrote it) */
  updated_at_mark: string | null;
  /** when the last sync started (ISO 8601): deletions after it are asked for next time */
  deletions_mark: string | null;
  /** when the last full sync ended (ISO 8601 UTC with ms); `putSyncState` with null keeps the previous value */
  last_full_sync_at: string | null;
}

/** The GID and handle of a product: what a `list_products` page shows. */
export interface ProductRef {
  gid: string;
  handle: string;
}

/**
 * Port: the catalog read model of a store (products with their variants, images and collection
 * memberships, the sync marks and `catalog_synced_at`), as the catalog use cases (server/catalog/)
 * need it. Every method taking a `StoreScope` takes it first and never returns or changes a product of
 * another store (it behaves as missing). The unscoped `variantsOf`, `imagesOf` and `collectionsOf` are
 * for seqs the caller got from a scoped read.
 *
 * Rows are plain shapes, the same on every backend (each adapter converts its own columns): lists and
 * objects as arrays and objects, `available` a boolean, timestamps ISO 8601 strings (`synced_at` as
 * `upsertMany` was given it, UTC with ms; `platform_updated_at` and the sync marks exactly as the
 * platform wrote them).
 *
 * A new product gets a seq above every product's seq of the database, and the seqs of one store commit
 * in order, so `maxSeq` bounds a cursor snapshot: products inserted later have a higher seq. (SQLite
 * may hand out again the seq of the highest product after it was deleted, as its rowids do; PostgreSQL
 * never reuses one.) Implementations: SQLite (server/db/sqlite/products.ts) and PostgreSQL
 * (server/db/postgres/products.ts); both pass server/db/contract/product-store-contract.ts.
 */
export interface ProductStore {
  /**
   * Insert or update products by (store, GID) in one transaction, replacing their variants, images and
   * search text. `replaceCollections` (sync) makes the given collections the complete membership; file
   * imports only add memberships. Collections are created by handle (lower-cased) on first use.
   * @param opts.at ISO 8601 UTC with ms, stored as `synced_at`
   * @returns seqs in input order
   */
  upsertMany(
    scope: StoreScope,
    products: CatalogProductInput[],
    source: ProductRow['source'],
    opts: { at: string; replaceCollections: boolean },
  ): Promise<number[]>;
  /** Delete products by GID with everything derived from them (variants, images, memberships, vectors). @returns how many existed */
  deleteByGids(scope: StoreScope, gids: string[]): Promise<number>;
  /** Every GID of the store (any status, any source). */
  gidsOfStore(scope: StoreScope): Promise<string[]>;
  /** Record when the store's catalog was last written (`catalog_synced_at`, ISO 8601 UTC with ms). */
  setSyncedAt(scope: StoreScope, at: string): Promise<void>;
  /** The store's `catalog_synced_at`, null when never synced. */
  syncedAt(scope: StoreScope): Promise<string | null>;
  /** The store's incremental sync marks, undefined before the first sync. */
  syncState(scope: StoreScope): Promise<CatalogSyncState | undefined>;
  putSyncState(scope: StoreScope, state: CatalogSyncState): Promise<void>;
  /** Snapshot bound of a new result set: every product of the store now has a seq ≤ it, later ones a higher seq. */
  maxSeq(scope: StoreScope): Promise<number>;
  /** The stores holding products, the one with the newest product first, at most `limit` (what a starting server loads first). */
  recentStores(limit: number): Promise<StoreScope[]>;
  /** Products by GID (any status); missing and foreign GIDs are absent from the map. */
  byGids(scope: StoreScope, gids: string[]): Promise<Map<string, ProductRow>>;
  /** The product with this handle (ASCII case-insensitive; the lowest seq when several). */
  byHandle(scope: StoreScope, handle: string): Promise<ProductRow | undefined>;
  /** Rows by seq, in the order given; foreign or missing seqs dropped. */
  bySeqs(scope: StoreScope, seqs: number[]): Promise<ProductRow[]>;
  /** GID and handle by seq; foreign or missing seqs absent. */
  refsBySeqs(scope: StoreScope, seqs: number[]): Promise<Map<number, ProductRef>>;
  /** Variants of products, by product seq then position. */
  variantsOf(seqs: number[]): Promise<VariantRow[]>;
  /** Images of products, by product seq then position. */
  imagesOf(seqs: number[]): Promise<ImageRow[]>;
  /** Collection memberships (lower-cased handles) of products, by handle. */
  collectionsOf(seqs: number[]): Promise<{ product_seq: number; handle: string }[]>;
  /** Every collection handle of the store (lower-cased, sorted), members or not. */
  collectionHandles(scope: StoreScope): Promise<string[]>;
  /** Highest id of the search change log: grows with every write to products, their vectors and memberships. */
  changeHead(): Promise<number>;
  /** `maxSeq` and `changeHead` in one read: what a new result set starts from. */
  searchSnapshot(scope: StoreScope): Promise<{ maxSeq: number; changeHead: number }>;
  /**
   * Browse under the filters in a stable order: title (ASCII case-insensitive, then byte order), then seq.
   * @returns one page and the total under the filters
   */
  browse(
    scope: StoreScope,
    f: ProductFilters,
    offset: number,
    limit: number,
  ): Promise<{ rows: ({ seq: number } & ProductRef)[]; total: number }>;
  /**
   * Related products without embeddings: score = 3 × shared collections + 2 × same product type (ASCII
   * case-insensitive, non-empty) + shared tags (case-insensitive); only products sharing something pass,
   * best first, ties by title as in `browse`, then seq.
   * @returns at most `k` seqs
   */
  relatedByAttributes(scope: StoreScope, source: ProductRow, f: ProductFilters, k: number): Promise<number[]>;
}
