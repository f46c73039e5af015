-- Public blob keys (issue 36 finding 3). A blob URL was `/a/<first 128 bits of the sha256>.<ext>`, the
-- same for every tenant: anyone could confirm that known bytes were stored, and a tenant's delete did not
-- take its URL down while another tenant held the bytes. Now each tenant has a secret (`blob_secret`,
-- 32 random bytes, hex) and a blob's public key is HMAC-SHA256(secret, sha256) cut to 128 bits, base64url
-- (server/db/blob-keys.ts), stored in the row that references the blob (`blob_key`). `/a/<key>` looks the
-- key up in these indexes and serves the sha256-addressed blob the row names: storage stays
-- content-addressed and deduplicated, only the public name changes.
--
-- Existing URLs: the secrets and keys cannot be computed in SQL (no HMAC), so the columns start NULL and
-- the application fills them when it starts (AssetStore.backfillBlobKeys, before it serves), secrets
-- from crypto.randomBytes. The old sha-derived `/a/` keys and the `/cdn/<sha256>` form stop answering at
-- once (404): answering them for a grace period would keep the cross-tenant oracle open for every blob
-- stored before the upgrade. Search, view and import answers carry the new URLs; pages that embedded an
-- old URL must take the new one (see README, "Blob URLs").
ALTER TABLE tenants ADD COLUMN blob_secret TEXT;
ALTER TABLE assets ADD COLUMN blob_key TEXT;
ALTER TABLE asset_renditions ADD COLUMN blob_key TEXT;
CREATE INDEX assets_blob_key ON assets(blob_key);
CREATE INDEX asset_renditions_blob_key ON asset_renditions(blob_key);
