-- Generation credits (spec §8 "image credit cost"): a per-workspace ledger of charges, and an optional
-- budget per workspace. Remaining credits = budget − sum(ledger credits); no budget row = unlimited.
CREATE TABLE credit_budgets (
  workspace_id   TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
  tenant_id      TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  budget_credits INTEGER NOT NULL CHECK (budget_credits >= 0),
  updated_at     TEXT NOT NULL
) STRICT;

CREATE TABLE credit_ledger (
  id           INTEGER PRIMARY KEY,
  tenant_id    TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  asset_id     TEXT,                 -- the generated asset this charge paid for
  provider     TEXT NOT NULL,
  model        TEXT NOT NULL,
  credits      INTEGER NOT NULL CHECK (credits >= 0),
  created_at   TEXT NOT NULL
) STRICT;
CREATE INDEX credit_ledger_workspace ON credit_ledger(tenant_id, workspace_id);

-- Reference images given as our own CDN URLs resolve to blobs; these indexes make the ownership check
-- (the blob must belong to an asset of the caller's workspace) an index lookup.
CREATE INDEX IF NOT EXISTS assets_sha256 ON assets(sha256);
CREATE INDEX IF NOT EXISTS asset_renditions_sha256 ON asset_renditions(sha256);
