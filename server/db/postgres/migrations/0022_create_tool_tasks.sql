-- Tool calls run as MCP tasks: the twin of SQLite migration 0064 (`outcome` jsonb, times timestamptz; `lease_until` and
-- `expires_at` ms since epoch).
CREATE TABLE tool_tasks (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  tool text NOT NULL,
  action text NOT NULL,
  status text NOT NULL CHECK (status IN ('working', 'completed', 'failed', 'cancelled')),
  status_message text,
  outcome jsonb,
  cancel_requested boolean NOT NULL DEFAULT false,
  owner text NOT NULL,
  lease_until bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  ttl_ms bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX tool_tasks_expiry ON tool_tasks (expires_at);
