-- English stemming for asset search: the Porter stemmer wraps unicode61, so "flowers" finds the tag
-- "flower" and "mountains" finds "mountain" (query terms are stemmed the same way). The index is rebuilt
-- from the assets table with the same column text as the triggers of 0001, which stay as they are (they
-- name assets_fts and resolve it when they run). https://www.sqlite.org/fts5.html#porter_tokenizer
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
