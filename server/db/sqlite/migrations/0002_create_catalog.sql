-- Product catalog read model (spec §2 Product, §4.8, §4.9), one per store.
-- `seq` is the rowid shared with `products_fts`; `gid` is the platform id (Shopify GID) seen on the wire.
CREATE TABLE products (
  seq               INTEGER PRIMARY KEY,
  store_id          TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  gid               TEXT NOT NULL,           -- gid://shopify/Product/<n>
  handle            TEXT NOT NULL,
  title             TEXT NOT NULL,
  description_html  TEXT NOT NULL DEFAULT '',
  description_text  TEXT NOT NULL DEFAULT '', -- HTML stripped, for FTS5 and embeddings
  status            TEXT NOT NULL CHECK (status IN ('ACTIVE', 'DRAFT', 'ARCHIVED')),
  total_inventory   INTEGER NOT NULL DEFAULT 0,
  product_type      TEXT NOT NULL DEFAULT '',
  vendor            TEXT NOT NULL DEFAULT '',
  tags              TEXT NOT NULL DEFAULT '[]', -- JSON array of strings, platform order
  options           TEXT NOT NULL DEFAULT '[]', -- JSON [{name, values[]}]
  selling_plan_groups TEXT NOT NULL DEFAULT '[]', -- JSON, the platform's groups with their plans, as given
  source            TEXT NOT NULL CHECK (source IN ('sync', 'csv', 'json')),
  platform_updated_at TEXT,                  -- updatedAt of the platform (ISO 8601), null for CSV
  synced_at         TEXT NOT NULL,           -- when this row was last written
  embed_text        TEXT NOT NULL DEFAULT '', -- text the product is embedded from (domain/catalog.ts productEmbeddingText)
  embed_sha256      TEXT NOT NULL DEFAULT '', -- its hash; an embedding with another hash is stale
  UNIQUE (store_id, gid)
) STRICT;
CREATE INDEX products_store_handle ON products(store_id, handle);
CREATE INDEX products_store_status ON products(store_id, status, seq);

CREATE TABLE product_variants (
  product_seq      INTEGER NOT NULL REFERENCES products(seq) ON DELETE CASCADE,
  position         INTEGER NOT NULL,
  gid              TEXT NOT NULL,            -- gid://shopify/ProductVariant/<n>
  title            TEXT NOT NULL,
  price            TEXT NOT NULL,            -- decimal string exactly as the platform gives it (never a float)
  compare_at_price TEXT,                     -- decimal string or NULL
  sku              TEXT NOT NULL DEFAULT '',
  available        INTEGER NOT NULL CHECK (available IN (0, 1)),
  inventory_quantity INTEGER,
  image_url        TEXT,
  selected_options TEXT NOT NULL DEFAULT '[]', -- JSON [{name, value}]
  PRIMARY KEY (product_seq, position)
) STRICT;

CREATE TABLE product_images (
  product_seq INTEGER NOT NULL REFERENCES products(seq) ON DELETE CASCADE,
  position    INTEGER NOT NULL,
  url         TEXT NOT NULL,
  alt_text    TEXT NOT NULL DEFAULT '',
  width       INTEGER,                       -- px; NULL when the source does not say (CSV)
  height      INTEGER,
  PRIMARY KEY (product_seq, position)
) STRICT;

CREATE TABLE collections (
  store_id TEXT NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  handle   TEXT NOT NULL,
  title    TEXT NOT NULL,
  gid      TEXT,                             -- gid://shopify/Collection/<n> when synced
  PRIMARY KEY (store_id, handle)
) STRICT;

CREATE TABLE collection_products (
  store_id    TEXT NOT NULL,
  handle      TEXT NOT NULL,
  product_seq INTEGER NOT NULL REFERENCES products(seq) ON DELETE CASCADE,
  PRIMARY KEY (store_id, handle, product_seq),
  FOREIGN KEY (store_id, handle) REFERENCES collections(store_id, handle) ON DELETE CASCADE
) STRICT, WITHOUT ROWID;
CREATE INDEX collection_products_product ON collection_products(product_seq);

-- Lexical index. Its rows are written by db/products.ts in the same transaction as the product,
-- because the text spans several tables (variant titles and SKUs). rowid = products.seq.
CREATE VIRTUAL TABLE products_fts USING fts5(
  title, handle, vendor, product_type, tags, description, variants,
  tokenize = 'unicode61 remove_diacritics 2',
  prefix = '2 3'
);
CREATE TRIGGER products_fts_delete AFTER DELETE ON products BEGIN
  DELETE FROM products_fts WHERE rowid = old.seq;
END;

-- Product embeddings for semantic search and related products. One row per product and model;
-- vectors of different model ids are never compared. `embedding` is a float32 BLOB read by sqlite-vec's
-- vec_distance_cosine. `text_sha256` detects a changed product text that needs re-embedding.
CREATE TABLE product_embeddings (
  product_seq INTEGER NOT NULL REFERENCES products(seq) ON DELETE CASCADE,
  model_id    TEXT NOT NULL,
  dimensions  INTEGER NOT NULL,
  text_sha256 TEXT NOT NULL,
  embedding   BLOB NOT NULL,
  PRIMARY KEY (product_seq, model_id)
) STRICT;
CREATE INDEX product_embeddings_model ON product_embeddings(model_id);

-- Incremental sync high-water mark per store (platform updatedAt of the newest product seen).
CREATE TABLE catalog_sync_state (
  store_id           TEXT PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
  updated_at_mark    TEXT,                   -- ISO 8601; next incremental sync asks for updated_at >= mark
  deletions_mark     TEXT,                   -- ISO 8601; next sync asks deletionEvents after it
  last_full_sync_at  TEXT
) STRICT;
