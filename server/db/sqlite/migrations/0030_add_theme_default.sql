-- A workspace's default theme (brand kit): what `svc_discover scope` and the server instructions name as
-- the theme_id to pass. At most one per workspace; existing workspaces get their oldest theme.
ALTER TABLE themes ADD COLUMN is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1));
UPDATE themes SET is_default = 1
WHERE id IN (
  SELECT (SELECT t2.id FROM themes t2 WHERE t2.workspace_id = w.id ORDER BY t2.created_at, t2.id LIMIT 1)
  FROM workspaces w
);
CREATE UNIQUE INDEX themes_one_default ON themes(workspace_id) WHERE is_default = 1;
