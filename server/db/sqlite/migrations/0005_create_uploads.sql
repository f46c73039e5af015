-- Upload sessions of the chunked upload channel (spec §4.7, attachments of §4.6).
-- Chunk bytes live in the staging directory (<data dir>/staging/<upload id>/), never in the asset
-- tables; an asset row exists only after the whole file was received and its sha256 verified.
CREATE TABLE uploads (
  id               TEXT PRIMARY KEY,         -- UUID; also the attachment_id once staged
  tenant_id        TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  workspace_id     TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  status           TEXT NOT NULL CHECK (status IN ('receiving', 'staged', 'imported', 'failed', 'aborted')),
  filename         TEXT NOT NULL,
  size_bytes       INTEGER NOT NULL CHECK (size_bytes > 0),
  sha256           TEXT NOT NULL,            -- declared by the client, lower-case hex
  mime_type        TEXT,                     -- declared by the client; the server sniffs the real type
  alt_text         TEXT,
  tags             TEXT,                     -- JSON array or NULL when not given
  purpose          TEXT,
  chunk_size_bytes INTEGER NOT NULL,
  chunk_count      INTEGER NOT NULL,
  asset_id         TEXT,                     -- set when imported (no FK: the asset may be deleted later)
  error            TEXT,                     -- JSON {code, field, message} when failed
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  expires_at_ms    INTEGER NOT NULL          -- epoch ms; swept (row and staged bytes) after this
) STRICT;
CREATE INDEX uploads_scope ON uploads(tenant_id, workspace_id, status);
CREATE INDEX uploads_expiry ON uploads(expires_at_ms);

-- One row per chunk stored in the staging directory.
CREATE TABLE upload_chunks (
  upload_id  TEXT NOT NULL REFERENCES uploads(id) ON DELETE CASCADE,
  idx        INTEGER NOT NULL,
  size_bytes INTEGER NOT NULL,
  PRIMARY KEY (upload_id, idx)
) STRICT, WITHOUT ROWID;
