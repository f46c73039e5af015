-- Index state of a search (issue 33): the twin of SQLite migration 0060. A partial index of the assets
-- whose enrichment is pending or running, so counting them per request reads only those rows.
CREATE INDEX assets_scope_enriching ON assets(tenant_id, workspace_id) WHERE enrichment_status IN ('pending', 'running');
