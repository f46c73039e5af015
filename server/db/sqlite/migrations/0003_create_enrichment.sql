-- Asynchronous enrichment after import: a durable job queue, the derived facts per asset, and the
-- registry of vector spaces. Each space (purpose + model id + dimensions) owns one sqlite-vec vec0
-- table `vec_space_<id>` created at run time (its dimension is only known then), so vectors of
-- different models are never mixed.

CREATE TABLE enrichment_jobs (
  id          INTEGER PRIMARY KEY,
  asset_seq   INTEGER NOT NULL REFERENCES assets(seq) ON DELETE CASCADE,
  kind        TEXT NOT NULL CHECK (kind IN ('analyze', 'embed_text')),
  state       TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  run_after   INTEGER NOT NULL,            -- epoch ms; retries back off by moving it forward
  last_error  TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  UNIQUE (asset_seq, kind)
) STRICT;
CREATE INDEX enrichment_jobs_due ON enrichment_jobs(state, run_after);

-- Machine-derived facts; user metadata stays in `assets` and wins (assets.user_fields).
CREATE TABLE asset_enrichment (
  asset_seq        INTEGER PRIMARY KEY REFERENCES assets(seq) ON DELETE CASCADE,
  colors           TEXT NOT NULL DEFAULT '[]',  -- JSON [{hex, name, share}] dominant colours, largest first
  orientation      TEXT CHECK (orientation IN ('landscape', 'portrait', 'square')),
  ocr_confidence   REAL,                        -- tesseract page confidence 0–100
  machine_alt_text TEXT,                        -- kept even when the user's alt text wins
  text_model_id    TEXT,                        -- model of the stored text embedding
  visual_model_id  TEXT,
  updated_at       TEXT NOT NULL
) STRICT;

CREATE TABLE vector_spaces (
  id         INTEGER PRIMARY KEY,
  purpose    TEXT NOT NULL CHECK (purpose IN ('asset_text', 'asset_visual')),
  model_id   TEXT NOT NULL,
  dimensions INTEGER NOT NULL CHECK (dimensions > 0),
  status     TEXT NOT NULL CHECK (status IN ('building', 'ready', 'retired')),
  created_at TEXT NOT NULL,
  UNIQUE (purpose, model_id, dimensions)
) STRICT;
