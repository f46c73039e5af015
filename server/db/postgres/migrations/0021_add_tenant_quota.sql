-- Per-tenant storage quota (issue 36), as SQLite migration 0063: an operator can give one tenant its own
-- quota (`atelier tenant quota set`). NULL = the server's ATELIER_TENANT_QUOTA_BYTES; 0 = unlimited; else bytes.
ALTER TABLE tenants ADD COLUMN quota_bytes bigint CHECK (quota_bytes IS NULL OR quota_bytes >= 0);
