-- Tenancy: tenants own workspaces; a workspace owns themes (brand kits), stores and assets.
CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE tenants (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE workspaces (
  id         TEXT PRIMARY KEY,
  tenant_id  TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  status     TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX workspaces_tenant ON workspaces(tenant_id);

CREATE TABLE themes (
  id           TEXT PRIMARY KEY,
  tenant_id    TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name         TEXT NOT NULL,
  brand_colors TEXT NOT NULL DEFAULT '[]', -- JSON array of hex colours
  brand_tone   TEXT,
  created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX themes_workspace ON themes(workspace_id);

CREATE TABLE stores (
  id                TEXT PRIMARY KEY,
  tenant_id         TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  workspace_id      TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name              TEXT NOT NULL,
  platform          TEXT NOT NULL DEFAULT 'shopify',
  shop_domain       TEXT,
  status            TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  catalog_synced_at TEXT,
  created_at        TEXT NOT NULL
) STRICT;
CREATE INDEX stores_workspace ON stores(workspace_id);

CREATE TABLE api_keys (
  id         TEXT PRIMARY KEY,
  tenant_id  TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  prefix     TEXT NOT NULL,           -- first characters, shown to operators
  key_hash   TEXT NOT NULL UNIQUE,    -- sha256 hex of the whole key; the key itself is never stored
  created_at TEXT NOT NULL,
  revoked_at TEXT
) STRICT;

CREATE TABLE api_key_workspaces (
  api_key_id   TEXT NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  PRIMARY KEY (api_key_id, workspace_id)
) STRICT, WITHOUT ROWID;

-- Assets. `seq` is the rowid shared with the FTS5 and vec0 tables; `id` is the public UUID.
CREATE TABLE assets (
  seq              INTEGER PRIMARY KEY,
  id               TEXT NOT NULL UNIQUE,
  tenant_id        TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  workspace_id     TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  kind             TEXT NOT NULL CHECK (kind IN ('image', 'video', 'svg')),
  format           TEXT NOT NULL,           -- jpeg, png, webp, gif, avif, svg, tiff, mp4 …
  mime_type        TEXT NOT NULL,
  width            INTEGER,                 -- px after EXIF orientation
  height           INTEGER,
  size_bytes       INTEGER NOT NULL,
  sha256           TEXT NOT NULL,           -- blob key of the stored original
  source_sha256    TEXT NOT NULL,           -- sha256 of the bytes as received (dedupe key; differs after HEIC→PNG)
  converted_from   TEXT,
  name             TEXT NOT NULL,           -- file name
  alt_text         TEXT,                    -- effective alt text (user's, else machine)
  tags             TEXT NOT NULL DEFAULT '[]', -- JSON array, user-authored
  auto_tags        TEXT NOT NULL DEFAULT '[]', -- JSON array, from enrichment
  purpose          TEXT,
  category         TEXT,
  subtype          TEXT,
  user_fields      TEXT NOT NULL DEFAULT '[]', -- JSON array of user-authored field names: filename, alt_text, tags, purpose
  ocr_text         TEXT,
  source           TEXT NOT NULL,           -- import_url, import_data, upload, generated, seed, cli
  source_url       TEXT,
  provenance       TEXT,                    -- JSON: prompt, style, provider … for generated assets
  processing_status TEXT NOT NULL DEFAULT 'ready' CHECK (processing_status IN ('ready', 'failed')),
  enrichment_status TEXT NOT NULL DEFAULT 'pending' CHECK (enrichment_status IN ('pending', 'running', 'done', 'failed', 'skipped')),
  created_at       TEXT NOT NULL,
  UNIQUE (workspace_id, source_sha256)
) STRICT;
CREATE INDEX assets_scope_created ON assets(tenant_id, workspace_id, created_at DESC, seq DESC);
CREATE INDEX assets_scope_category ON assets(workspace_id, category, subtype);

-- Derived renditions (thumbnail, fallback, responsive WebP). Bytes live in the blob store.
CREATE TABLE asset_renditions (
  asset_seq  INTEGER NOT NULL REFERENCES assets(seq) ON DELETE CASCADE,
  role       TEXT NOT NULL CHECK (role IN ('thumbnail', 'fallback', 'webp')),
  width      INTEGER NOT NULL,
  height     INTEGER NOT NULL,
  format     TEXT NOT NULL,
  sha256     TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  PRIMARY KEY (asset_seq, role, width)
) STRICT;

-- FTS5 over the searchable text of an asset; rowid = assets.seq. Kept in step by the triggers
-- below so every writer (import, enrichment, generation) gets it for free.
-- unicode61 with remove_diacritics 2 folds "café" to "cafe"; '-' '_' '.' split file names into words.
CREATE VIRTUAL TABLE assets_fts USING fts5(
  name, alt_text, tags, ocr_text,
  tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER assets_fts_ai AFTER INSERT ON assets BEGIN
  INSERT INTO assets_fts(rowid, name, alt_text, tags, ocr_text)
  VALUES (
    new.seq, new.name, coalesce(new.alt_text, ''),
    (SELECT coalesce(group_concat(value, ' '), '') FROM (SELECT value FROM json_each(new.tags) UNION ALL SELECT value FROM json_each(new.auto_tags))),
    coalesce(new.ocr_text, '')
  );
END;

CREATE TRIGGER assets_fts_ad AFTER DELETE ON assets BEGIN
  DELETE FROM assets_fts WHERE rowid = old.seq;
END;

CREATE TRIGGER assets_fts_au AFTER UPDATE OF name, alt_text, tags, auto_tags, ocr_text ON assets BEGIN
  DELETE FROM assets_fts WHERE rowid = old.seq;
  INSERT INTO assets_fts(rowid, name, alt_text, tags, ocr_text)
  VALUES (
    new.seq, new.name, coalesce(new.alt_text, ''),
    (SELECT coalesce(group_concat(value, ' '), '') FROM (SELECT value FROM json_each(new.tags) UNION ALL SELECT value FROM json_each(new.auto_tags))),
    coalesce(new.ocr_text, '')
  );
END;
