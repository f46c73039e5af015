-- Seq order within a workspace: the cursor snapshot bound (`max(seq)` of a workspace) becomes one index
-- probe, and row lookups by seq stay inside the workspace's range. Lexical queries join the FTS5 table
-- with CROSS JOIN (db/lexical-index.ts): with this index and a free join order SQLite would scan the
-- workspace's rows and run the FTS match once per row.
CREATE INDEX assets_scope_seq ON assets(tenant_id, workspace_id, seq);
