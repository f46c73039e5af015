-- Row counts of the search scopes on PostgreSQL (issue 16), so a search never counts a whole workspace
-- or store: the lexical planner's IDF needs the scope's document count (server/domain/lexical.ts
-- `size`). A `count(*)` of 100,000 assets took ~93 ms of a ~170 ms search (bench/backends.bench.ts before
-- VACUUM; 13-27 ms after it), growing with the library.
--
-- `asset_counts`: assets per (workspace, tenant), as `count(*) FROM assets WHERE tenant_id AND
-- workspace_id` would answer; `product_counts`: products per store. Statement triggers with transition
-- tables keep them in the writing transaction (one sorted upsert per statement, as asset_terms), so a
-- reader's statement sees the counts of exactly the rows it sees: exact under any number of server
-- processes, with no cache to go stale. A row-level trigger covers an update that moves a row to
-- another scope (nothing does that today). The triggers' names sort before the term counters'
-- (asset_counts_* < asset_terms_*), so a statement locks its count row before its term rows. The count
-- row is one lock per scope: inserts already queue on the scope's row (workspace, store) so seqs commit
-- in order, and wait no longer; a delete takes it after the rows it deletes, so a transaction holding it
-- that then updates an existing row (a product batch's upserts) takes the scope's row first, and so do
-- product deletes (server/db/postgres/products.ts): otherwise the two deadlock.
-- Creating the triggers locks the tables against writes until this migration commits: the counts are
-- taken from rows no one else can change, and every later write goes through the triggers.

CREATE TABLE asset_counts (
  workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  tenant_id    text COLLATE "C" NOT NULL,
  assets       bigint NOT NULL,
  PRIMARY KEY (workspace_id, tenant_id)
);

CREATE FUNCTION asset_counts_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO asset_counts (workspace_id, tenant_id, assets)
    SELECT n.workspace_id, n.tenant_id, count(*) FROM new_rows n GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (workspace_id, tenant_id) DO UPDATE SET assets = asset_counts.assets + excluded.assets;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO asset_counts (workspace_id, tenant_id, assets)
    SELECT o.workspace_id, o.tenant_id, -count(*) FROM old_rows o
    -- a workspace being deleted takes its counts with it (the foreign key's cascade)
    WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = o.workspace_id)
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (workspace_id, tenant_id) DO UPDATE SET assets = asset_counts.assets + excluded.assets;
  ELSE
    INSERT INTO asset_counts (workspace_id, tenant_id, assets)
    SELECT x.workspace_id, x.tenant_id, x.d FROM (VALUES (OLD.workspace_id, OLD.tenant_id, -1), (NEW.workspace_id, NEW.tenant_id, 1)) AS x (workspace_id, tenant_id, d)
    WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = x.workspace_id)
    ORDER BY 1, 2
    ON CONFLICT (workspace_id, tenant_id) DO UPDATE SET assets = asset_counts.assets + excluded.assets;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER asset_counts_insert AFTER INSERT ON assets REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION asset_counts_change();
CREATE TRIGGER asset_counts_delete AFTER DELETE ON assets REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION asset_counts_change();
CREATE TRIGGER asset_counts_move AFTER UPDATE OF tenant_id, workspace_id ON assets
  FOR EACH ROW WHEN ((OLD.workspace_id, OLD.tenant_id) IS DISTINCT FROM (NEW.workspace_id, NEW.tenant_id))
  EXECUTE FUNCTION asset_counts_change();
INSERT INTO asset_counts (workspace_id, tenant_id, assets)
SELECT workspace_id, tenant_id, count(*) FROM assets GROUP BY 1, 2;

CREATE TABLE product_counts (
  store_id text COLLATE "C" PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
  products bigint NOT NULL
);

CREATE FUNCTION product_counts_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO product_counts (store_id, products)
    SELECT n.store_id, count(*) FROM new_rows n GROUP BY 1 ORDER BY 1
    ON CONFLICT (store_id) DO UPDATE SET products = product_counts.products + excluded.products;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO product_counts (store_id, products)
    SELECT o.store_id, -count(*) FROM old_rows o
    -- a store being deleted takes its count with it (the foreign key's cascade)
    WHERE EXISTS (SELECT 1 FROM stores s WHERE s.id = o.store_id)
    GROUP BY 1 ORDER BY 1
    ON CONFLICT (store_id) DO UPDATE SET products = product_counts.products + excluded.products;
  ELSE
    INSERT INTO product_counts (store_id, products)
    SELECT x.store_id, x.d FROM (VALUES (OLD.store_id, -1), (NEW.store_id, 1)) AS x (store_id, d)
    WHERE EXISTS (SELECT 1 FROM stores s WHERE s.id = x.store_id)
    ORDER BY 1
    ON CONFLICT (store_id) DO UPDATE SET products = product_counts.products + excluded.products;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER product_counts_insert AFTER INSERT ON products REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION product_counts_change();
CREATE TRIGGER product_counts_delete AFTER DELETE ON products REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION product_counts_change();
CREATE TRIGGER product_counts_move AFTER UPDATE OF store_id ON products
  FOR EACH ROW WHEN (OLD.store_id IS DISTINCT FROM NEW.store_id)
  EXECUTE FUNCTION product_counts_change();
INSERT INTO product_counts (store_id, products)
SELECT store_id, count(*) FROM products GROUP BY 1;

