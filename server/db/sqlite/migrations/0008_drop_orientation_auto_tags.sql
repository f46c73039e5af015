-- Orientation is no longer an automatic tag: "landscape" and "portrait" are also subjects, and as tags
-- they made every wide or tall image match those words. Orientation is now the asset's `orientation`
-- field and search filter (from width/height). User tags are untouched; the FTS trigger reindexes.
UPDATE assets
SET auto_tags = (
  SELECT json_group_array(value) FROM json_each(assets.auto_tags)
  WHERE value NOT IN ('landscape', 'portrait', 'square')
)
WHERE auto_tags IS NOT NULL
  AND EXISTS (SELECT 1 FROM json_each(assets.auto_tags) WHERE value IN ('landscape', 'portrait', 'square'));
