-- English stemming for asset search: the Porter stemmer wraps unicode61, so "flowers" finds the tag
-- "flower" and "mountains" finds "mountain" (query terms are stemmed the same way). The index is rebuilt
-- from the assets table with the same column text as the triggers of 0001, which are recreated.
-- https://www.sqlite.org/fts5.html#porter_tokenizer
DROP TRIGGER assets_fts_ai;
DROP TRIGGER assets_fts_ad;
DROP TRIGGER assets_fts_au;
DROP TABLE assets_fts;

CREATE VIRTUAL TABLE assets_fts USING fts5(
  name, alt_text, tags, ocr_text,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO assets_fts(rowid, name, alt_text, tags, ocr_text)
SELECT a.seq, a.name, coalesce(a.alt_text, ''),
  (SELECT coalesce(group_concat(value, ' '), '') FROM (SELECT value FROM json_each(a.tags) UNION ALL SELECT value FROM json_each(a.auto_tags))),
  coalesce(a.ocr_text, '')
FROM assets a;

CREATE TRIGGER assets_fts_ai AFTER INSERT ON assets BEGIN
  INSERT INTO assets_fts(rowid, name, alt_text, tags, ocr_text)
  VALUES (
    new.seq, new.name, coalesce(new.alt_text, ''),
    (SELECT coalesce(group_concat(value, ' '), '') FROM (SELECT value FROM json_each(new.tags) UNION ALL SELECT value FROM json_each(new.auto_tags))),
    coalesce(new.ocr_text, '')
  );
END;

CREATE TRIGGER assets_fts_ad AFTER DELETE ON assets BEGIN
  DELETE FROM assets_fts WHERE rowid = old.seq;
END;

CREATE TRIGGER assets_fts_au AFTER UPDATE OF name, alt_text, tags, auto_tags, ocr_text ON assets BEGIN
  DELETE FROM assets_fts WHERE rowid = old.seq;
  INSERT INTO assets_fts(rowid, name, alt_text, tags, ocr_text)
  VALUES (
    new.seq, new.name, coalesce(new.alt_text, ''),
    (SELECT coalesce(group_concat(value, ' '), '') FROM (SELECT value FROM json_each(new.tags) UNION ALL SELECT value FROM json_each(new.auto_tags))),
    coalesce(new.ocr_text, '')
  );
END;
