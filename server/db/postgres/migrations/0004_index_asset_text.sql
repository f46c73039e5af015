-- Full-text search over assets on PostgreSQL (issue 16): the twin of the SQLite FTS5 index assets_fts
-- (server/db/migrations 0001, 0010, 0022). One weighted tsvector per asset, kept by a trigger like the
-- FTS5 triggers, with the FTS5 columns as weights in the order of their bm25() weights
-- (server/db/lexical-index.ts: name 4, tags 3, alt_text 2, ocr_text 1):
--   A  name and name_words      B  user tags and automatic tags (automatic colour words left out, 0022)
--   C  alt_text                 D  ocr_text
-- ranked with ts_rank_cd weights {D,C,B,A} = {0.25, 0.5, 0.75, 1} (the same 1:2:3:4 ratios).
-- https://www.postgresql.org/docs/15/textsearch-controls.html#TEXTSEARCH-RANKING
--
-- Text configuration `atelier_english`: the english Snowball stemmer (FTS5 uses Porter; both stem
-- "flowers" to "flower") behind the unaccent dictionary, so "café" and "cafe" meet as with FTS5's
-- remove_diacritics (the configuration of the unaccent documentation,
-- https://www.postgresql.org/docs/15/unaccent.html). unaccent is a trusted contrib extension: a user
-- with CREATE on the database may install it; it goes into schema public, once per database.
--
-- ASCII punctuation becomes a space before parsing: the default parser would keep "RedFox_0042.jpg" or
-- "photo-12.png" whole as one `host`/`file` token, where FTS5's unicode61 splits them into words.
-- (A bracket expression of ranges, not [[:punct:]]: character classes depend on the database's locale.)

CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;

CREATE TEXT SEARCH CONFIGURATION atelier_english (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION atelier_english
  ALTER MAPPING FOR hword, hword_part, word WITH public.unaccent, english_stem;

ALTER TABLE assets ADD COLUMN search_vector tsvector;

CREATE FUNCTION asset_search_text(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(coalesce(t, ''), '[!-/:-@\[-`{-~]+', ' ', 'g')
$$;

CREATE FUNCTION assets_search_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_vector :=
    setweight(to_tsvector('atelier_english', asset_search_text(NEW.name || ' ' || coalesce(NEW.name_words, ''))), 'A') ||
    setweight(to_tsvector('atelier_english', asset_search_text((
      SELECT string_agg(v, ' ') FROM (
        SELECT jsonb_array_elements_text(NEW.tags::jsonb) AS v
        UNION ALL
        SELECT v FROM jsonb_array_elements_text(NEW.auto_tags::jsonb) AS v
        WHERE v NOT IN ('red', 'orange', 'yellow', 'olive', 'green', 'teal', 'blue', 'purple', 'pink', 'brown', 'beige', 'black', 'white', 'grey')
      ) words))), 'B') ||
    setweight(to_tsvector('atelier_english', asset_search_text(NEW.alt_text)), 'C') ||
    setweight(to_tsvector('atelier_english', asset_search_text(NEW.ocr_text)), 'D');
  RETURN NEW;
END $$;

CREATE TRIGGER assets_search_vector BEFORE INSERT OR UPDATE OF name, name_words, alt_text, tags, auto_tags, ocr_text ON assets
  FOR EACH ROW EXECUTE FUNCTION assets_search_vector();

UPDATE assets SET name = name;
ALTER TABLE assets ALTER COLUMN search_vector SET NOT NULL;

CREATE INDEX assets_search ON assets USING gin (search_vector);
