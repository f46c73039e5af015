-- Tool calls run as MCP tasks (Tasks extension io.modelcontextprotocol/tasks, revision 2026-07-28): the
-- state `tasks/get` and `tasks/cancel` read on any process. `id` is the random task id handed to the client;
-- `outcome` the JSON of the CallToolResult (completed) or JSON-RPC error (failed). `owner` is the runner id of
-- the process doing the work and `lease_until` (ms since epoch) how long its claim holds unrenewed: a working
-- task past it lost its process. `expires_at` (ms since epoch) = creation + `ttl_ms`: swept after.
CREATE TABLE tool_tasks (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  tool TEXT NOT NULL,
  action TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('working', 'completed', 'failed', 'cancelled')),
  status_message TEXT,
  outcome TEXT,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  owner TEXT NOT NULL,
  lease_until INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  ttl_ms INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX tool_tasks_expiry ON tool_tasks (expires_at);
