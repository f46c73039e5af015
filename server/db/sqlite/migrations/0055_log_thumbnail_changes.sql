-- A thumbnail rendition added or removed changes an asset's search result card (db/asset-cards.ts),
-- which processes hold in memory (db/asset-card-partitions.ts) and bring up to date from the
-- `search_changes` log (migration 0046). Renditions are written with their asset today, in the same
-- transaction (its row is logged); these triggers keep the cards right for any later rendition write.
CREATE TRIGGER search_changes_thumbnail_ai AFTER INSERT ON asset_renditions WHEN new.role = 'thumbnail' BEGIN
  INSERT INTO search_changes (kind, part, seq) SELECT 'asset', workspace_id, seq FROM assets WHERE seq = new.asset_seq;
END;
CREATE TRIGGER search_changes_thumbnail_ad AFTER DELETE ON asset_renditions WHEN old.role = 'thumbnail' BEGIN
  INSERT INTO search_changes (kind, part, seq) SELECT 'asset', workspace_id, seq FROM assets WHERE seq = old.asset_seq;
END;
CREATE TRIGGER search_changes_thumbnail_au AFTER UPDATE ON asset_renditions WHEN old.role = 'thumbnail' OR new.role = 'thumbnail' BEGIN
  INSERT INTO search_changes (kind, part, seq) SELECT 'asset', workspace_id, seq FROM assets WHERE seq IN (old.asset_seq, new.asset_seq);
END;
