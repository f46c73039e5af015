-- The state that must survive a process (issue 16), on PostgreSQL: asset pickers, upload sessions and
-- their chunk records, generation credits (budgets, ledger, holds) and the enrichment job queue. Same
-- columns and meaning as the SQLite tables (server/db/migrations 0003–0006, 0009, 0012–0015, 0050).
-- Times the SQLite side stores as ISO text are timestamptz (read back as the same ISO ms value); times
-- it stores as epoch ms are bigint epoch ms.
--
-- No foreign keys yet: tenants, workspaces and assets still live in SQLite. When they move here,
-- tenant_id/workspace_id get REFERENCES tenants(id)/workspaces(id) ON DELETE CASCADE (every table below),
-- and enrichment_jobs.asset_seq REFERENCES assets(seq) ON DELETE CASCADE (until then a deleted asset's
-- jobs stay and are skipped by the handlers, which look the asset up first).

CREATE TABLE pickers (
  id           text PRIMARY KEY,                -- UUID, the picker_id handed to the agent
  tenant_id    text NOT NULL,
  workspace_id text NOT NULL,
  theme_id     text NOT NULL,
  delivery     text NOT NULL CHECK (delivery IN ('panel', 'elicitation', 'text')),
  status       text NOT NULL CHECK (status IN ('awaiting_user', 'confirmed', 'declined', 'cancelled', 'candidates', 'expired')),
  request      jsonb NOT NULL,                  -- the select args as parsed
  selection    jsonb NOT NULL DEFAULT '[]',     -- asset ids in selection order
  created_at   timestamptz NOT NULL,
  confirmed_at timestamptz
);
CREATE INDEX pickers_scope ON pickers (tenant_id, workspace_id, created_at);
CREATE INDEX pickers_awaiting ON pickers (status, created_at);

CREATE TABLE uploads (
  id               text PRIMARY KEY,            -- UUID; also the attachment_id once staged
  tenant_id        text NOT NULL,
  workspace_id     text NOT NULL,
  status           text NOT NULL CHECK (status IN ('receiving', 'staged', 'imported', 'failed', 'aborted')),
  filename         text NOT NULL,
  size_bytes       bigint NOT NULL CHECK (size_bytes > 0),
  sha256           text NOT NULL,
  mime_type        text,
  alt_text         text,
  tags             text,                        -- JSON array text, as the port hands it over
  purpose          text,
  chunk_size_bytes integer NOT NULL,
  chunk_count      integer NOT NULL,
  asset_id         text,                        -- no FK even later: the asset may be deleted
  error            text,                        -- JSON {code, field, message} text
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  expires_at_ms    bigint NOT NULL,             -- epoch ms
  panel_id         text
);
CREATE INDEX uploads_scope ON uploads (tenant_id, workspace_id, status);
CREATE INDEX uploads_expiry ON uploads (expires_at_ms);
CREATE INDEX uploads_panel ON uploads (tenant_id, workspace_id, panel_id);

CREATE TABLE upload_chunks (
  upload_id  text NOT NULL REFERENCES uploads (id) ON DELETE CASCADE,
  idx        integer NOT NULL,
  size_bytes integer NOT NULL,
  PRIMARY KEY (upload_id, idx)
);

-- One row per workspace that ever reserved credits: the row `reserve` and `settle` lock (FOR UPDATE via
-- INSERT … ON CONFLICT DO UPDATE) so the budget check and the hold insert of concurrent callers are
-- serialised per workspace, in any process.
CREATE TABLE credit_accounts (
  tenant_id    text NOT NULL,
  workspace_id text NOT NULL,
  PRIMARY KEY (tenant_id, workspace_id)
);

CREATE TABLE credit_budgets (
  workspace_id   text PRIMARY KEY,
  tenant_id      text NOT NULL,
  budget_credits integer NOT NULL CHECK (budget_credits >= 0),
  updated_at     timestamptz NOT NULL
);

CREATE TABLE credit_ledger (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id    text NOT NULL,
  workspace_id text NOT NULL,
  asset_id     text,                            -- the generated asset this charge paid for
  provider     text NOT NULL,
  model        text NOT NULL,
  credits      integer NOT NULL CHECK (credits >= 0),
  created_at   timestamptz NOT NULL,
  hold_id      text                             -- the hold this charge settled (at most one charge per hold)
);
CREATE INDEX credit_ledger_workspace ON credit_ledger (tenant_id, workspace_id);
CREATE UNIQUE INDEX credit_ledger_hold ON credit_ledger (hold_id) WHERE hold_id IS NOT NULL;

CREATE TABLE credit_holds (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL,
  workspace_id  text NOT NULL,
  credits       integer NOT NULL CHECK (credits >= 0),
  created_at    timestamptz NOT NULL,
  expires_at_ms bigint NOT NULL                 -- epoch ms; a hold of a crashed process stops counting then
);
CREATE INDEX credit_holds_workspace ON credit_holds (tenant_id, workspace_id, expires_at_ms);

CREATE TABLE enrichment_jobs (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  asset_seq   bigint NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('analyze', 'embed_text')),
  state       text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts    integer NOT NULL DEFAULT 0,
  rerun       smallint NOT NULL DEFAULT 0 CHECK (rerun IN (0, 1)),
  run_after   bigint NOT NULL,                  -- epoch ms; retries back off by moving it forward
  last_error  text,
  lease_owner text,
  lease_until bigint,                           -- epoch ms
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  UNIQUE (asset_seq, kind)
);
CREATE INDEX enrichment_jobs_due ON enrichment_jobs (state, run_after);
