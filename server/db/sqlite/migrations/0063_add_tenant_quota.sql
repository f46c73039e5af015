-- Per-tenant storage quota (issue 36): an operator can give one tenant its own quota
-- (`atelier tenant quota set`). NULL = the server's ATELIER_TENANT_QUOTA_BYTES; 0 = unlimited; else bytes.
ALTER TABLE tenants ADD COLUMN quota_bytes INTEGER CHECK (quota_bytes IS NULL OR quota_bytes >= 0);
