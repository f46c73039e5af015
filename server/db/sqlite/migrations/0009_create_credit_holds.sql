-- Credits reserved by generations in flight, in the database rather than in one process's memory, so
-- several server processes on one data dir (an HTTP server and stdio servers) cannot together overspend
-- a workspace budget. A hold is released in the transaction that charges the ledger, or on failure; a
-- hold left by a crashed process stops counting at expires_at_ms.
CREATE TABLE credit_holds (
  id            TEXT PRIMARY KEY,
  tenant_id     TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  workspace_id  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  credits       INTEGER NOT NULL CHECK (credits >= 0),
  created_at    TEXT NOT NULL,
  expires_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX credit_holds_workspace ON credit_holds(tenant_id, workspace_id, expires_at_ms);
