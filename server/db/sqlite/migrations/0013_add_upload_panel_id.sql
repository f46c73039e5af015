-- The upload panel instance a session was begun from (the panel_id of the svc_asset_upload result), so
-- a panel the host remounts can list what it already sent to the conversation.
ALTER TABLE uploads ADD COLUMN panel_id TEXT;
CREATE INDEX uploads_panel ON uploads(tenant_id, workspace_id, panel_id);
