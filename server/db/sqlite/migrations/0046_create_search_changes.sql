-- Change log of what in-memory search state depends on (db/search-changes.ts): every process keeps the
-- quantised vector partitions of the workspaces and stores it searched (server/vector-scan/), and
-- before each search replays the rows added since it last looked, reloading those seqs from SQLite,
-- which stays the storage of record. `id` only grows (AUTOINCREMENT: never reused, even after pruning).
-- `kind` 'asset' (part = workspace id; asset rows, and vector writes by db/vectors.ts) or 'product'
-- (part = store id; products, their embeddings and collection memberships).
CREATE TABLE search_changes (
  id   INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('asset', 'product')),
  part TEXT NOT NULL,
  seq  INTEGER NOT NULL
) STRICT;

CREATE TRIGGER search_changes_asset_ai AFTER INSERT ON assets BEGIN
  INSERT INTO search_changes (kind, part, seq) VALUES ('asset', new.workspace_id, new.seq);
END;
CREATE TRIGGER search_changes_asset_au AFTER UPDATE ON assets BEGIN
  INSERT INTO search_changes (kind, part, seq) VALUES ('asset', new.workspace_id, new.seq);
END;
CREATE TRIGGER search_changes_asset_ad AFTER DELETE ON assets BEGIN
  INSERT INTO search_changes (kind, part, seq) VALUES ('asset', old.workspace_id, old.seq);
END;

CREATE TRIGGER search_changes_product_ai AFTER INSERT ON products BEGIN
  INSERT INTO search_changes (kind, part, seq) VALUES ('product', new.store_id, new.seq);
END;
CREATE TRIGGER search_changes_product_au AFTER UPDATE ON products BEGIN
  INSERT INTO search_changes (kind, part, seq) VALUES ('product', new.store_id, new.seq);
END;
CREATE TRIGGER search_changes_product_ad AFTER DELETE ON products BEGIN
  INSERT INTO search_changes (kind, part, seq) VALUES ('product', old.store_id, old.seq);
END;

CREATE TRIGGER search_changes_embedding_ai AFTER INSERT ON product_embeddings BEGIN
  INSERT INTO search_changes (kind, part, seq) SELECT 'product', store_id, seq FROM products WHERE seq = new.product_seq;
END;
CREATE TRIGGER search_changes_embedding_au AFTER UPDATE ON product_embeddings BEGIN
  INSERT INTO search_changes (kind, part, seq) SELECT 'product', store_id, seq FROM products WHERE seq = new.product_seq;
END;
CREATE TRIGGER search_changes_embedding_ad AFTER DELETE ON product_embeddings BEGIN
  INSERT INTO search_changes (kind, part, seq) SELECT 'product', store_id, seq FROM products WHERE seq = old.product_seq;
END;

CREATE TRIGGER search_changes_membership_ai AFTER INSERT ON collection_products BEGIN
  INSERT INTO search_changes (kind, part, seq) VALUES ('product', new.store_id, new.product_seq);
END;
CREATE TRIGGER search_changes_membership_ad AFTER DELETE ON collection_products BEGIN
  INSERT INTO search_changes (kind, part, seq) VALUES ('product', old.store_id, old.product_seq);
END;

-- Bounded size: every thousandth row drops what is 100,000 rows old. A process whose mark falls behind
-- the oldest kept row reloads its partitions from scratch.
CREATE TRIGGER search_changes_prune AFTER INSERT ON search_changes WHEN new.id % 1000 = 0 BEGIN
  DELETE FROM search_changes WHERE id <= new.id - 100000;
END;
