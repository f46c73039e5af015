-- Pickers a user never answers expire (status 'expired') instead of awaiting the user forever, and an
-- elicitation that failed closes its picker as 'candidates' (the fallback list). SQLite cannot alter a
-- CHECK constraint, so the table is rebuilt (https://www.sqlite.org/lang_altertable.html#otheralter).
CREATE TABLE pickers_new (
  id           TEXT PRIMARY KEY,
  tenant_id    TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  theme_id     TEXT NOT NULL,
  delivery     TEXT NOT NULL CHECK (delivery IN ('panel', 'elicitation', 'text')),
  status       TEXT NOT NULL CHECK (status IN ('awaiting_user', 'confirmed', 'declined', 'cancelled', 'candidates', 'expired')),
  request      TEXT NOT NULL,
  selection    TEXT NOT NULL DEFAULT '[]',
  created_at   TEXT NOT NULL,
  confirmed_at TEXT
) STRICT;
INSERT INTO pickers_new SELECT id, tenant_id, workspace_id, theme_id, delivery, status, request, selection, created_at, confirmed_at FROM pickers;
DROP TABLE pickers;
ALTER TABLE pickers_new RENAME TO pickers;
CREATE INDEX pickers_scope ON pickers(tenant_id, workspace_id, created_at);
CREATE INDEX pickers_awaiting ON pickers(status, created_at);
