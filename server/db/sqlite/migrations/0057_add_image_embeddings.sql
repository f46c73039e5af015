-- Image–text model (issue 33): its image embeddings form a third kind of vector space, `asset_image`
-- (one CLIP-class model id + dimensions, like the others), filled by the new job kind `embed_image`.
-- SQLite cannot change a CHECK constraint in place, so both tables are rebuilt with the same rows and
-- ids (the vec0 tables are named by space id, `vec_space_<id>`, and stay valid).

CREATE TABLE vector_spaces_new (
  id         INTEGER PRIMARY KEY,
  purpose    TEXT NOT NULL CHECK (purpose IN ('asset_text', 'asset_visual', 'asset_image')),
  model_id   TEXT NOT NULL,
  dimensions INTEGER NOT NULL CHECK (dimensions > 0),
  status     TEXT NOT NULL CHECK (status IN ('building', 'ready', 'retired')),
  created_at TEXT NOT NULL,
  UNIQUE (purpose, model_id, dimensions)
) STRICT;
INSERT INTO vector_spaces_new (id, purpose, model_id, dimensions, status, created_at)
  SELECT id, purpose, model_id, dimensions, status, created_at FROM vector_spaces;
DROP TABLE vector_spaces;
ALTER TABLE vector_spaces_new RENAME TO vector_spaces;

CREATE TABLE enrichment_jobs_new (
  id          INTEGER PRIMARY KEY,
  asset_seq   INTEGER NOT NULL REFERENCES assets(seq) ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('analyze', 'embed_text', 'embed_image')),
  state       TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  run_after   INTEGER NOT NULL,            -- epoch ms; retries back off by moving it forward
  last_error  TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,                     -- epoch ms
  rerun       INTEGER NOT NULL DEFAULT 0 CHECK (rerun IN (0, 1)),
  UNIQUE (asset_seq, kind)
) STRICT;
INSERT INTO enrichment_jobs_new (id, asset_seq, kind, state, attempts, run_after, last_error, created_at, updated_at, lease_owner, lease_until, rerun)
  SELECT id, asset_seq, kind, state, attempts, run_after, last_error, created_at, updated_at, lease_owner, lease_until, rerun FROM enrichment_jobs;
DROP TABLE enrichment_jobs;
ALTER TABLE enrichment_jobs_new RENAME TO enrichment_jobs;
CREATE INDEX enrichment_jobs_due ON enrichment_jobs(state, run_after);
