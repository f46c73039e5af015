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
  lexical_vector      tsvector NOT NULL,          -- Porter stems with FTS5 columns as weights (product-lexicon.ts)
  UNIQUE (store_id, gid)
);
CREATE INDEX products_store_seq ON products (store_id, seq);
CREATE INDEX products_store_handle ON products (store_id, lower(handle));
CREATE INDEX products_store_title ON products (store_id, lower(title), seq);

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

-- The lexical index of products, for the lexical planner (server/domain/lexical.ts) through
-- server/db/postgres/product-lexical-index.ts: the twin of the SQLite FTS5 table products_fts and its
-- vocabulary products_fts_vocab (server/db/migrations 0002, 0011, 0020), built as the asset lexicon
-- is (postgres/migrations 0010).
-- 1. `products.lexical_vector`: the Porter stems FTS5 would index (postgres/porter-tokens.ts), written
--    by the product store with every row (postgres/product-lexicon.ts; products have no other writer).
-- 2. `product_terms`: each store's terms with their document counts (fts5vocab's `doc`), kept by
--    statement triggers from the vectors' changes, for typo candidates by prefix and for keeping WordNet
--    expansions to words the catalog holds. Per store, where the SQLite vocabulary spans the whole file.
--    Terms whose count falls to 0 stay as rows with docs = 0 and are never answered.
CREATE INDEX products_lexical ON products USING gin (lexical_vector);

CREATE TABLE product_terms (
  store_id text COLLATE "C" NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  term     text COLLATE "C" NOT NULL,
  docs     integer NOT NULL,
  PRIMARY KEY (store_id, term)
);

-- One sorted upsert per statement with the net change of each term: concurrent statements lock term
-- rows in the same (store, term) order, so they wait for each other instead of deadlocking.
CREATE FUNCTION product_terms_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO product_terms (store_id, term, docs)
    SELECT n.store_id, t.term, count(*)
    FROM new_rows n, unnest(tsvector_to_array(n.lexical_vector)) AS t (term)
    GROUP BY n.store_id, t.term ORDER BY 1, 2
    ON CONFLICT (store_id, term) DO UPDATE SET docs = product_terms.docs + excluded.docs;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO product_terms (store_id, term, docs)
    SELECT o.store_id, t.term, -count(*)
    FROM old_rows o, unnest(tsvector_to_array(o.lexical_vector)) AS t (term)
    -- a store being deleted takes its terms with it (the foreign key's cascade)
    WHERE EXISTS (SELECT 1 FROM stores s WHERE s.id = o.store_id)
    GROUP BY o.store_id, t.term ORDER BY 1, 2
    ON CONFLICT (store_id, term) DO UPDATE SET docs = product_terms.docs + excluded.docs;
  ELSE
    INSERT INTO product_terms (store_id, term, docs)
    SELECT c.store_id, t.term, sum(t.d)
    FROM (
      SELECT n.store_id, n.lexical_vector AS nv, o.lexical_vector AS ov
      FROM new_rows n JOIN old_rows o ON o.seq = n.seq
      WHERE n.lexical_vector IS DISTINCT FROM o.lexical_vector
    ) c,
    LATERAL (
      SELECT x, 1 FROM unnest(tsvector_to_array(c.nv)) AS x
      UNION ALL
      SELECT x, -1 FROM unnest(tsvector_to_array(c.ov)) AS x
    ) AS t (term, d)
    GROUP BY c.store_id, t.term HAVING sum(t.d) <> 0 ORDER BY 1, 2
    ON CONFLICT (store_id, term) DO UPDATE SET docs = product_terms.docs + excluded.docs;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER product_terms_insert AFTER INSERT ON products REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION product_terms_count();
CREATE TRIGGER product_terms_update AFTER UPDATE ON products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION product_terms_count();
CREATE TRIGGER product_terms_delete AFTER DELETE ON products REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION product_terms_count();

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
