-- Search text hygiene for assets.
-- 1. `name_words`: the readable words of the file name (camelCase, snake and kebab case split; hashes,
--    counters and camera prefixes such as IMG_/DSC_/PXL_ dropped), written by the application
--    (domain/alt-text.ts nameWords) and indexed with the name, so "RedFox_0042.jpg" is found by "fox".
-- 2. Automatic colour tags stay facts (shown in `tags`, kept in asset_enrichment.colors) but are no
--    longer free-text words: "blue sky" must not match every photo with some blue in it. User tags are
--    indexed whatever they say.
-- The triggers of 0001 are replaced; the index is rebuilt from the assets table.
ALTER TABLE assets ADD COLUMN name_words TEXT;

DROP TRIGGER assets_fts_ai;
DROP TRIGGER assets_fts_au;

CREATE TRIGGER assets_fts_ai AFTER INSERT ON assets BEGIN
  INSERT INTO assets_fts(rowid, name, alt_text, tags, ocr_text)
  VALUES (
    new.seq, new.name || ' ' || coalesce(new.name_words, ''), coalesce(new.alt_text, ''),
    (SELECT coalesce(group_concat(value, ' '), '') FROM (
      SELECT value FROM json_each(new.tags)
      UNION ALL
      SELECT value FROM json_each(new.auto_tags)
      WHERE value NOT IN ('red', 'orange', 'yellow', 'olive', 'green', 'teal', 'blue', 'purple', 'pink', 'brown', 'beige', 'black', 'white', 'grey'))),
    coalesce(new.ocr_text, '')
  );
END;

CREATE TRIGGER assets_fts_au AFTER UPDATE OF name, name_words, alt_text, tags, auto_tags, ocr_text ON assets BEGIN
  DELETE FROM assets_fts WHERE rowid = old.seq;
  INSERT INTO assets_fts(rowid, name, alt_text, tags, ocr_text)
  VALUES (
    new.seq, new.name || ' ' || coalesce(new.name_words, ''), coalesce(new.alt_text, ''),
    (SELECT coalesce(group_concat(value, ' '), '') FROM (
      SELECT value FROM json_each(new.tags)
      UNION ALL
      SELECT value FROM json_each(new.auto_tags)
      WHERE value NOT IN ('red', 'orange', 'yellow', 'olive', 'green', 'teal', 'blue', 'purple', 'pink', 'brown', 'beige', 'black', 'white', 'grey'))),
    coalesce(new.ocr_text, '')
  );
END;

DELETE FROM assets_fts;
INSERT INTO assets_fts(rowid, name, alt_text, tags, ocr_text)
SELECT a.seq, a.name || ' ' || coalesce(a.name_words, ''), coalesce(a.alt_text, ''),
  (SELECT coalesce(group_concat(value, ' '), '') FROM (
    SELECT value FROM json_each(a.tags)
    UNION ALL
    SELECT value FROM json_each(a.auto_tags)
    WHERE value NOT IN ('red', 'orange', 'yellow', 'olive', 'green', 'teal', 'blue', 'purple', 'pink', 'brown', 'beige', 'black', 'white', 'grey'))),
  coalesce(a.ocr_text, '')
FROM assets a;
