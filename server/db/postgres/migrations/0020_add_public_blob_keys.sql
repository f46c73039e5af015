-- Public blob keys (issue 36 finding 3), as SQLite migration 0062: a per-tenant secret (`blob_secret`,
-- 32 random bytes, hex) and, in every row that references a blob, its public key `blob_key` =
-- HMAC-SHA256(secret, sha256) cut to 128 bits, base64url (server/db/blob-keys.ts). `/a/<key>` looks the
-- key up in these indexes and serves the sha256-addressed blob: storage stays content-addressed and
-- deduplicated across tenants, only the public name is per tenant. Collation "C": keys are compared
-- byte-wise (case-sensitive), as SQLite's BINARY.
--
-- Existing rows: the columns start NULL and the application fills them when it starts
-- (AssetStore.backfillBlobKeys, before it serves; secrets from crypto.randomBytes, pgcrypto is not
-- assumed). The old sha-derived `/a/` keys and `/cdn/<sha256>` URLs stop answering at once (404), so no
-- blob stored before the upgrade stays confirmable by its hash (see README, "Blob URLs").
ALTER TABLE tenants ADD COLUMN blob_secret text;
ALTER TABLE assets ADD COLUMN blob_key text COLLATE "C";
ALTER TABLE asset_renditions ADD COLUMN blob_key text COLLATE "C";
CREATE INDEX assets_blob_key ON assets (blob_key);
CREATE INDEX asset_renditions_blob_key ON asset_renditions (blob_key);
