-- A synonym rule added or removed changes how a scope's searches match, so it moves the `search_changes`
-- head (migration 0046) like a row change: a process may then keep a scope's rules in memory until the
-- head moves (db/synonym-store.ts), and a ranked pass kept for a cursor is not reused across the change.
-- seq 0 is no row (replays read no row 0): a workspace's rule is logged under its workspace ('asset'),
-- a store's rule under its store ('product').
CREATE TRIGGER search_changes_synonym_ai AFTER INSERT ON search_synonyms BEGIN
  INSERT INTO search_changes (kind, part, seq)
  VALUES (CASE WHEN new.store_id IS NULL THEN 'asset' ELSE 'product' END, coalesce(new.store_id, new.workspace_id), 0);
END;
CREATE TRIGGER search_changes_synonym_au AFTER UPDATE ON search_synonyms BEGIN
  INSERT INTO search_changes (kind, part, seq)
  VALUES (CASE WHEN new.store_id IS NULL THEN 'asset' ELSE 'product' END, coalesce(new.store_id, new.workspace_id), 0);
END;
CREATE TRIGGER search_changes_synonym_ad AFTER DELETE ON search_synonyms BEGIN
  INSERT INTO search_changes (kind, part, seq)
  VALUES (CASE WHEN old.store_id IS NULL THEN 'asset' ELSE 'product' END, coalesce(old.store_id, old.workspace_id), 0);
END;
