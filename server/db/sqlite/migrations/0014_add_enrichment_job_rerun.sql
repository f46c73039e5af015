-- A job asked to run again while it is running (a metadata update during `analyze`): instead of
-- dropping the request, the running job is flagged and goes back to the queue when it settles, so the
-- re-run sees the new metadata (vec0 metadata columns, embedding text).
ALTER TABLE enrichment_jobs ADD COLUMN rerun INTEGER NOT NULL DEFAULT 0 CHECK (rerun IN (0, 1));
