-- Image–text model (issue 33): the twin of SQLite migration 0057. Image embeddings form a third kind
-- of vector space, `asset_image`, filled by the new job kind `embed_image`.
ALTER TABLE vector_spaces DROP CONSTRAINT vector_spaces_purpose_check;
ALTER TABLE vector_spaces ADD CONSTRAINT vector_spaces_purpose_check CHECK (purpose IN ('asset_text', 'asset_visual', 'asset_image'));
ALTER TABLE enrichment_jobs DROP CONSTRAINT enrichment_jobs_kind_check;
ALTER TABLE enrichment_jobs ADD CONSTRAINT enrichment_jobs_kind_check CHECK (kind IN ('analyze', 'embed_text', 'embed_image'));
