-- Asset pickers (svc_asset_select, spec §4.2). One row per `select` call; the user's confirmed choice is
-- stored here so get_selection answers after a panel remount, a reconnect or a server restart.
CREATE TABLE pickers (
  id           TEXT PRIMARY KEY,              -- UUID, the picker_id handed to the agent
  tenant_id    TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  theme_id     TEXT NOT NULL,
  delivery     TEXT NOT NULL CHECK (delivery IN ('panel', 'elicitation', 'text')),
  status       TEXT NOT NULL CHECK (status IN ('awaiting_user', 'confirmed', 'declined', 'cancelled', 'candidates')),
  request      TEXT NOT NULL,                 -- JSON: the select args as parsed
  selection    TEXT NOT NULL DEFAULT '[]',    -- JSON array of asset ids in selection order
  created_at   TEXT NOT NULL,
  confirmed_at TEXT
) STRICT;
CREATE INDEX pickers_scope ON pickers(tenant_id, workspace_id, created_at);
