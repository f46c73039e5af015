-- Operator-edited synonym lists (`atelier synonyms …`), as Shopify and Algolia offer: a two-way rule
-- makes every word stand for every other ("sofa, couch, settee"); a one-way rule lets `input` also
-- find `words` but not back ("tee" → "t-shirt"). A rule without a store belongs to the workspace and
-- applies to its asset search and to every store of it; a rule with a store applies to that store's
-- list_products only.
CREATE TABLE search_synonyms (
  id           TEXT PRIMARY KEY,
  tenant_id    TEXT NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  store_id     TEXT REFERENCES stores(id) ON DELETE CASCADE,
  kind         TEXT NOT NULL CHECK (kind IN ('two_way', 'one_way')),
  input        TEXT,                  -- one_way only: the word whose search also finds `words`
  words        TEXT NOT NULL,         -- JSON array of words or phrases
  created_at   TEXT NOT NULL,
  CHECK ((kind = 'one_way') = (input IS NOT NULL))
) STRICT;
CREATE INDEX search_synonyms_scope ON search_synonyms(workspace_id, store_id);
