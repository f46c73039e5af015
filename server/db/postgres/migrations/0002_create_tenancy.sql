-- Tenancy on PostgreSQL (issue 16): settings, tenants, workspaces, themes (brand kits), stores, API keys
-- and their workspace grants. Same columns, constraints and meaning as the SQLite tables (server/db/
-- migrations 0001, 0030). Times the SQLite side stores as ISO text are timestamptz, read back as the same
-- ISO 8601 ms value by server/db/postgres/tenancy.ts. Identifiers and hashes use the "C" collation so
-- they sort byte-wise, as SQLite's BINARY collation does (ORDER BY created_at, id must agree), and hex
-- ranges (key_hash, sha256) are plain byte ranges.
--
-- The state tables of 0001 keep their foreign-key-free tenant_id/workspace_id for now (their contract
-- suites run without tenants); the asset tables of 0003 reference these tables as in SQLite.

CREATE TABLE settings (
  key   text COLLATE "C" PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE tenants (
  id         text COLLATE "C" PRIMARY KEY,
  name       text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX tenants_name ON tenants (name, created_at);

CREATE TABLE workspaces (
  id         text COLLATE "C" PRIMARY KEY,
  tenant_id  text COLLATE "C" NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name       text NOT NULL,
  status     text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  created_at timestamptz NOT NULL
);
CREATE INDEX workspaces_tenant ON workspaces (tenant_id, created_at, id);

CREATE TABLE themes (
  id           text COLLATE "C" PRIMARY KEY,
  tenant_id    text COLLATE "C" NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  brand_colors text NOT NULL DEFAULT '[]',     -- JSON array of hex colours, as text (the row shape SQLite gives)
  brand_tone   text,
  is_default   smallint NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  created_at   timestamptz NOT NULL
);
CREATE INDEX themes_workspace ON themes (workspace_id);
CREATE UNIQUE INDEX themes_one_default ON themes (workspace_id) WHERE is_default = 1;

CREATE TABLE stores (
  id                text COLLATE "C" PRIMARY KEY,
  tenant_id         text COLLATE "C" NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  workspace_id      text COLLATE "C" NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name              text NOT NULL,
  platform          text NOT NULL DEFAULT 'shopify',
  shop_domain       text,
  status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  catalog_synced_at timestamptz,
  created_at        timestamptz NOT NULL
);
CREATE INDEX stores_workspace ON stores (workspace_id);

CREATE TABLE api_keys (
  id         text COLLATE "C" PRIMARY KEY,
  tenant_id  text COLLATE "C" NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name       text NOT NULL,
  prefix     text NOT NULL,                   -- first characters, shown to operators
  key_hash   text COLLATE "C" NOT NULL UNIQUE, -- sha256 hex of the whole key; the key itself is never stored
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id);

CREATE TABLE api_key_workspaces (
  api_key_id   text COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  PRIMARY KEY (api_key_id, workspace_id)
);
CREATE INDEX api_key_workspaces_workspace ON api_key_workspaces (workspace_id);
