-- Captions from a vision-capable model (optional, OpenAI-compatible chat completions). Kept apart
-- from the heuristic machine alt text so the embedding text can use them: they describe content.
ALTER TABLE asset_enrichment ADD COLUMN caption TEXT;
ALTER TABLE asset_enrichment ADD COLUMN caption_model_id TEXT;
