-- Drop the english full-text column of 0004 (issue 16): `search_vector`, its trigger, function and GIN
-- index, the `asset_search_text` helper and the `atelier_english` configuration. Search runs on the
-- lexicon of 0010 (`lexical_vector`: the Porter stems FTS5 indexes, written by the application, so the
-- planner behaves as on SQLite), and nothing reads `search_vector` since its port (AssetTextSearch) gave
-- way to the LexicalIndex; the trigger still computed four to_tsvector calls per insert and text update
-- and kept a second GIN index. The `unaccent` extension stays: 0004 creates it on a fresh database.

DROP TRIGGER IF EXISTS assets_search_vector ON assets;
DROP FUNCTION IF EXISTS assets_search_vector();
DROP INDEX IF EXISTS assets_search;
ALTER TABLE assets DROP COLUMN IF EXISTS search_vector;
DROP FUNCTION IF EXISTS asset_search_text(text);
DROP TEXT SEARCH CONFIGURATION IF EXISTS atelier_english;
