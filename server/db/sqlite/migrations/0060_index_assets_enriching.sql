-- Index state of a search (issue 33): every asset search, select and picker counts the workspace's
-- assets whose enrichment is not finished (`enrichment_status` pending or running). This partial index
-- holds only those rows, so the count is a probe of a few entries (none once the library is analysed),
-- whatever the size of the workspace.
CREATE INDEX assets_scope_enriching ON assets(tenant_id, workspace_id) WHERE enrichment_status IN ('pending', 'running');
