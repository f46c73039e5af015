-- The product catalog on PostgreSQL (issue 16): the twin of the SQLite read model (server/db/migrations
-- 0002, 0011, 0046, 0047): products with their variants, images, collections and memberships, product
-- embeddings and the incremental sync marks. Same columns, constraints and meaning; JSON columns stay
-- JSON text so rows have the SQLite shape. `synced_at` (written by us, ISO with ms) is timestamptz;
-- `platform_updated_at` and the sync marks are the platform's own strings, kept as text exactly.
-- Handles, titles and product types use the "C" collation: lower() of a "C" value folds ASCII letters
-- only, which is SQLite's NOCASE, and "C" orders byte-wise as SQLite's BINARY, so browse order and
-- case-insensitive lookups agree with the SQLite side.
--
-- seq is a bigserial (never reused). server/db/postgres/products.ts locks the store's row before
-- writing products, so one store's seqs commit in order and max(seq) bounds a cursor snapshot.

CREATE TABLE products (
  seq                 bigserial PRIMARY KEY,
  store_id            text COLLATE "C" NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  gid                 text COLLATE "C" NOT NULL,  -- gid://shopify/Product/<n>
  handle              text COLLATE "C" NOT NULL,
  title               text COLLATE "C" NOT NULL,
  description_html    text NOT NULL DEFAULT '',
  description_text    text NOT NULL DEFAULT '',   -- HTML stripped, for search and embeddings
  status              text NOT NULL CHECK (status IN ('ACTIVE', 'DRAFT', 'ARCHIVED')),
  total_inventory     bigint NOT NULL DEFAULT 0,
  product_type        text COLLATE "C" NOT NULL DEFAULT '',
  vendor              text NOT NULL DEFAULT '',
  tags                text NOT NULL DEFAULT '[]', -- JSON array text, platform order
  options             text NOT NULL DEFAULT '[]', -- JSON [{name, values[]}]
  selling_plan_groups text NOT NULL DEFAULT '[]', -- JSON as the platform gives it
  source              text NOT NULL CHECK (source IN ('sync', 'csv', 'json')),
  platform_updated_at text,                       -- platform updatedAt as given, null for CSV
  synced_at           timestamptz NOT NULL,
  embed_text          text NOT NULL DEFAULT '',   -- domain/catalog.ts productEmbeddingText
  embed_sha256        text NOT NULL DEFAULT '',
  search_vector       tsvector NOT NULL,          -- product_search_vector(), written with the row
  UNIQUE (store_id, gid)
);
CREATE INDEX products_store_seq ON products (store_id, seq);
CREATE INDEX products_store_handle ON products (store_id, lower(handle));
CREATE INDEX products_store_title ON products (store_id, lower(title), seq);
CREATE INDEX products_search ON products USING gin (search_vector);

CREATE TABLE product_variants (
  product_seq        bigint NOT NULL REFERENCES products (seq) ON DELETE CASCADE,
  position           integer NOT NULL,
  gid                text NOT NULL,
  title              text NOT NULL,
  price              text NOT NULL,               -- decimal string exactly as the platform gives it
  compare_at_price   text,
  sku                text NOT NULL DEFAULT '',
  available          smallint NOT NULL CHECK (available IN (0, 1)),
  inventory_quantity bigint,
  image_url          text,
  selected_options   text NOT NULL DEFAULT '[]', -- JSON [{name, value}]
  PRIMARY KEY (product_seq, position)
);

CREATE TABLE product_images (
  product_seq bigint NOT NULL REFERENCES products (seq) ON DELETE CASCADE,
  position    integer NOT NULL,
  url         text NOT NULL,
  alt_text    text NOT NULL DEFAULT '',
  width       integer,                            -- px; null when the source does not say (CSV)
  height      integer,
  PRIMARY KEY (product_seq, position)
);

CREATE TABLE collections (
  store_id text COLLATE "C" NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  handle   text COLLATE "C" NOT NULL,             -- lower-cased by the writer
  title    text NOT NULL,
  gid      text,
  PRIMARY KEY (store_id, handle)
);

CREATE TABLE collection_products (
  store_id    text COLLATE "C" NOT NULL,
  handle      text COLLATE "C" NOT NULL,
  product_seq bigint NOT NULL REFERENCES products (seq) ON DELETE CASCADE,
  PRIMARY KEY (store_id, handle, product_seq),
  FOREIGN KEY (store_id, handle) REFERENCES collections (store_id, handle) ON DELETE CASCADE
);
CREATE INDEX collection_products_product ON collection_products (product_seq);

-- One vector per product and model, float4[] so it is stored whether or not pgvector is installed
-- (searching casts it to pgvector's `vector`, see postgres/product-vectors.ts). `nonzero` is false for
-- the zero vector of a text without a known word: it has no direction and is never a neighbour.
CREATE TABLE product_embeddings (
  product_seq bigint NOT NULL REFERENCES products (seq) ON DELETE CASCADE,
  model_id    text COLLATE "C" NOT NULL,
  dimensions  integer NOT NULL CHECK (dimensions > 0),
  text_sha256 text NOT NULL,
  embedding   real[] NOT NULL CHECK (cardinality(embedding) = dimensions),
  nonzero     boolean NOT NULL,
  PRIMARY KEY (product_seq, model_id)
);
CREATE INDEX product_embeddings_model ON product_embeddings (model_id, dimensions);

CREATE TABLE catalog_sync_state (
  store_id          text COLLATE "C" PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
  updated_at_mark   text,
  deletions_mark    text,
  last_full_sync_at text
);

-- Full-text search text of a product: the twin of products_fts (SQLite 0002, 0011), one weighted
-- tsvector in the `atelier_english` configuration of 0004 (english Snowball stemmer behind unaccent;
-- punctuation split as FTS5's unicode61 does, asset_search_text). FTS5 ranks with bm25 column weights
-- title 10, handle 4, vendor 2, product_type 3, tags 4, description 1, variants 2
-- (server/db/lexical-index.ts); PostgreSQL has four weight classes:
--   A  title (10)      B  handle, tags (4)      C  product_type, vendor, variants (3, 2, 2)      D  description (1)
-- to be ranked with ts_rank_cd weights {D,C,B,A} = {0.1, 0.25, 0.4, 1.0}.
-- https://www.postgresql.org/docs/15/textsearch-controls.html#TEXTSEARCH-RANKING
CREATE FUNCTION product_search_vector(title text, handle text, vendor text, product_type text, tags text, description text, variants text)
RETURNS tsvector LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('atelier_english', asset_search_text(title)), 'A') ||
         setweight(to_tsvector('atelier_english', asset_search_text(handle || ' ' || tags)), 'B') ||
         setweight(to_tsvector('atelier_english', asset_search_text(product_type || ' ' || vendor || ' ' || variants)), 'C') ||
         setweight(to_tsvector('atelier_english', asset_search_text(description)), 'D')
$$;

-- The search change log's product half (SQLite 0046): products, their embeddings and memberships.
CREATE FUNCTION search_changes_log_product() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO search_changes (kind, part, seq) VALUES ('product', OLD.store_id, OLD.seq);
  ELSE
    INSERT INTO search_changes (kind, part, seq) VALUES ('product', NEW.store_id, NEW.seq);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_changes_product AFTER INSERT OR UPDATE OR DELETE ON products
  FOR EACH ROW EXECUTE FUNCTION search_changes_log_product();

-- A cascaded delete runs after its product is gone: the lookup finds nothing and the product's own
-- delete has been logged.
CREATE FUNCTION search_changes_log_product_part() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_changes (kind, part, seq)
    SELECT 'product', p.store_id, p.seq FROM products p
    WHERE p.seq = CASE WHEN TG_OP = 'DELETE' THEN OLD.product_seq ELSE NEW.product_seq END;
  RETURN NULL;
END $$;
CREATE TRIGGER search_changes_product_embedding AFTER INSERT OR UPDATE OR DELETE ON product_embeddings
  FOR EACH ROW EXECUTE FUNCTION search_changes_log_product_part();
CREATE TRIGGER search_changes_membership AFTER INSERT OR DELETE ON collection_products
  FOR EACH ROW EXECUTE FUNCTION search_changes_log_product_part();
