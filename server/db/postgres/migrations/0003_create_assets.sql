-- Assets on PostgreSQL (issue 16): the asset rows, their renditions, the machine-derived facts
-- enrichment keeps per asset, and the search change log's asset half. Same columns, constraints and
-- meaning as the SQLite tables (server/db/migrations 0001, 0003, 0004, 0007, 0022, 0045, 0046); the JSON
-- columns stay JSON text so rows have the SQLite shape. Times stored as ISO text there are timestamptz
-- here. Ids, hashes and roles use the "C" collation (byte-wise order as SQLite's BINARY, and hex prefix
-- ranges over the sha256 indexes are byte ranges whatever the database's locale).
--
-- seq is a bigserial: a sequence never hands a value out twice (even after a delete or a rolled-back
-- insert), which SQLite gets from the asset_seq_high_water setting. node-postgres reads int8 as a
-- number through server/db/postgres/pool.ts, which refuses values past 2^53 − 1 rather than round them.
--
-- enrichment_jobs.asset_seq (0001) gets no foreign key yet: the job-queue contract runs without assets
-- and the handlers look the asset up first, skipping a deleted one.

CREATE TABLE assets (
  seq               bigserial PRIMARY KEY,
  id                text COLLATE "C" NOT NULL UNIQUE,
  tenant_id         text COLLATE "C" NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  workspace_id      text COLLATE "C" NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  kind              text NOT NULL CHECK (kind IN ('image', 'video', 'svg')),
  format            text NOT NULL,
  mime_type         text NOT NULL,
  width             integer,                     -- px after EXIF orientation
  height            integer,
  size_bytes        bigint NOT NULL,
  sha256            text COLLATE "C" NOT NULL,   -- blob key of the stored original
  source_sha256     text COLLATE "C" NOT NULL,   -- sha256 of the bytes as received (dedupe key)
  converted_from    text,
  name              text NOT NULL,
  name_words        text,                        -- readable words of the name, written by the application
  alt_text          text,
  tags              text NOT NULL DEFAULT '[]',  -- JSON array text, user-authored
  auto_tags         text NOT NULL DEFAULT '[]',  -- JSON array text, from enrichment
  purpose           text,
  category          text,
  subtype           text,
  user_fields       text NOT NULL DEFAULT '[]',  -- JSON array text of user-authored field names
  ocr_text          text,
  source            text NOT NULL,
  source_url        text,
  provenance        text,                        -- JSON text
  processing_status text NOT NULL DEFAULT 'ready' CHECK (processing_status IN ('ready', 'failed')),
  enrichment_status text NOT NULL DEFAULT 'pending' CHECK (enrichment_status IN ('pending', 'running', 'done', 'failed', 'skipped')),
  created_at        timestamptz NOT NULL,
  UNIQUE (workspace_id, source_sha256)
);
CREATE INDEX assets_scope_created ON assets (tenant_id, workspace_id, created_at DESC, seq DESC);
CREATE INDEX assets_scope_category ON assets (workspace_id, category, subtype);
CREATE INDEX assets_scope_seq ON assets (tenant_id, workspace_id, seq);
CREATE INDEX assets_sha256 ON assets (sha256);
CREATE INDEX assets_name_words_missing ON assets (seq) WHERE name_words IS NULL;

CREATE TABLE asset_renditions (
  asset_seq  bigint NOT NULL REFERENCES assets (seq) ON DELETE CASCADE,
  role       text COLLATE "C" NOT NULL CHECK (role IN ('thumbnail', 'fallback', 'webp')),
  width      integer NOT NULL,
  height     integer NOT NULL,
  format     text NOT NULL,
  sha256     text COLLATE "C" NOT NULL,
  size_bytes bigint NOT NULL,
  PRIMARY KEY (asset_seq, role, width)
);
CREATE INDEX asset_renditions_sha256 ON asset_renditions (sha256);

-- Machine-derived facts; user metadata stays in `assets` and wins (assets.user_fields).
CREATE TABLE asset_enrichment (
  asset_seq        bigint PRIMARY KEY REFERENCES assets (seq) ON DELETE CASCADE,
  colors           text NOT NULL DEFAULT '[]',  -- JSON text [{hex, name, share}], largest first
  orientation      text CHECK (orientation IN ('landscape', 'portrait', 'square')),
  ocr_confidence   double precision,            -- tesseract page confidence 0–100
  machine_alt_text text,                        -- kept even when the user's alt text wins
  text_model_id    text,
  visual_model_id  text,
  updated_at       timestamptz NOT NULL,
  caption          text,
  caption_model_id text
);

-- The search change log (SQLite migration 0046): `id` only grows; `kind` 'asset' (part = workspace id)
-- or 'product' (part = store id; written once products live here).
CREATE TABLE search_changes (
  id   bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('asset', 'product')),
  part text COLLATE "C" NOT NULL,
  seq  bigint NOT NULL
);

CREATE FUNCTION search_changes_log_asset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO search_changes (kind, part, seq) VALUES ('asset', OLD.workspace_id, OLD.seq);
  ELSE
    INSERT INTO search_changes (kind, part, seq) VALUES ('asset', NEW.workspace_id, NEW.seq);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_changes_asset AFTER INSERT OR UPDATE OR DELETE ON assets
  FOR EACH ROW EXECUTE FUNCTION search_changes_log_asset();

-- Bounded size, as in SQLite: every thousandth row drops what is 100,000 rows old. A reader whose mark
-- falls behind the oldest kept row reloads from scratch.
CREATE FUNCTION search_changes_prune() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id % 1000 = 0 THEN
    DELETE FROM search_changes WHERE id <= NEW.id - 100000;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER search_changes_prune AFTER INSERT ON search_changes
  FOR EACH ROW EXECUTE FUNCTION search_changes_prune();
