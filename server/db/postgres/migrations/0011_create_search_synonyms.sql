-- Operator synonym lists on PostgreSQL (issue 16): the twin of the SQLite table search_synonyms
-- (server/db/migrations 0021), same columns, constraints and meaning. A two-way rule makes every word
-- stand for every other; a one-way rule lets `input` also find `words` but not back. A rule without a
-- store belongs to the workspace (asset search and every store); one with a store applies to that
-- store's list_products only. `words` stays JSON text so rows have the SQLite shape.
CREATE TABLE search_synonyms (
  id           text COLLATE "C" PRIMARY KEY,
  tenant_id    text COLLATE "C" NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  store_id     text COLLATE "C" REFERENCES stores (id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('two_way', 'one_way')),
  input        text,                   -- one_way only: the word whose search also finds `words`
  words        text NOT NULL,          -- JSON array of words or phrases
  created_at   timestamptz NOT NULL,
  CHECK ((kind = 'one_way') = (input IS NOT NULL))
);
CREATE INDEX search_synonyms_scope ON search_synonyms (workspace_id, store_id, created_at, id);
