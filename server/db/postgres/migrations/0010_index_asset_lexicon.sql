-- The lexical index of assets on PostgreSQL (issue 16), for the lexical planner (server/domain/lexical.ts)
-- through server/db/postgres/lexical-index.ts: the twin of the SQLite FTS5 table assets_fts and its
-- vocabulary assets_fts_vocab (server/db/migrations 0010, 0020, 0022).
--
-- 1. `lexical_vector`: the Porter stems FTS5 would index, with one weight letter per FTS5 column
--    (A name, B tags, C alt_text, D ocr_text), written by the application (server/db/postgres/
--    asset-lexicon.ts) because PostgreSQL has no stemmer and parser that reproduce FTS5's: the planner
--    asks the index which of its own stems it holds. Null means stale: a trigger nulls it when a write
--    changes the text without writing the vector, and readers refresh a scope's stale rows first
--    (rows that exist before this migration start stale). `search_vector` (0004, english
--    configuration) stays for AssetTextSearch.
-- 2. `asset_terms`: each workspace's terms with their document counts (fts5vocab's `doc` column), kept
--    by statement triggers from the vectors' changes, for typo candidates by prefix and for keeping
--    WordNet expansions to terms the library holds. ts_stat would read every vector of the workspace
--    per call (see the measurement in lexical-index.ts). Per workspace, where the SQLite vocabulary
--    spans the whole file: a tenant's typo candidates never come from another tenant's words. Terms
--    whose count falls to 0 stay as rows with docs = 0 and are never answered.
-- 3. The search change log (0003) skips updates that only write `lexical_vector`: a refresh is no change
--    of the asset for the caches that replay the log.

ALTER TABLE assets ADD COLUMN lexical_vector tsvector;
CREATE INDEX assets_lexical ON assets USING gin (lexical_vector);
CREATE INDEX assets_lexical_stale ON assets (tenant_id, workspace_id, seq) WHERE lexical_vector IS NULL;

CREATE FUNCTION assets_lexical_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.lexical_vector IS NOT DISTINCT FROM OLD.lexical_vector
     AND (NEW.name, NEW.name_words, NEW.alt_text, NEW.tags, NEW.auto_tags, NEW.ocr_text)
         IS DISTINCT FROM (OLD.name, OLD.name_words, OLD.alt_text, OLD.tags, OLD.auto_tags, OLD.ocr_text) THEN
    NEW.lexical_vector := NULL;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER assets_lexical_stale BEFORE UPDATE OF name, name_words, alt_text, tags, auto_tags, ocr_text ON assets
  FOR EACH ROW EXECUTE FUNCTION assets_lexical_stale();

CREATE TABLE asset_terms (
  workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  term         text COLLATE "C" NOT NULL,
  tenant_id    text COLLATE "C" NOT NULL,
  docs         integer NOT NULL,
  PRIMARY KEY (workspace_id, term)
);

-- One sorted upsert per statement with the net change of each term: concurrent statements lock term
-- rows in the same (workspace, term) order, so they wait for each other instead of deadlocking.
CREATE FUNCTION asset_terms_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO asset_terms (workspace_id, term, tenant_id, docs)
    SELECT n.workspace_id, t.term, min(n.tenant_id), count(*)
    FROM new_rows n, unnest(tsvector_to_array(n.lexical_vector)) AS t (term)
    GROUP BY n.workspace_id, t.term ORDER BY 1, 2
    ON CONFLICT (workspace_id, term) DO UPDATE SET docs = asset_terms.docs + excluded.docs;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO asset_terms (workspace_id, term, tenant_id, docs)
    SELECT o.workspace_id, t.term, min(o.tenant_id), -count(*)
    FROM old_rows o, unnest(tsvector_to_array(o.lexical_vector)) AS t (term)
    -- a workspace being deleted takes its terms with it (the foreign key's cascade)
    WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = o.workspace_id)
    GROUP BY o.workspace_id, t.term ORDER BY 1, 2
    ON CONFLICT (workspace_id, term) DO UPDATE SET docs = asset_terms.docs + excluded.docs;
  ELSE
    INSERT INTO asset_terms (workspace_id, term, tenant_id, docs)
    SELECT c.workspace_id, t.term, min(c.tenant_id), sum(t.d)
    FROM (
      SELECT n.workspace_id, n.tenant_id, n.lexical_vector AS nv, o.lexical_vector AS ov
      FROM new_rows n JOIN old_rows o ON o.seq = n.seq
      WHERE n.lexical_vector IS DISTINCT FROM o.lexical_vector
    ) c,
    LATERAL (
      SELECT x, 1 FROM unnest(tsvector_to_array(c.nv)) AS x
      UNION ALL
      SELECT x, -1 FROM unnest(tsvector_to_array(c.ov)) AS x
    ) AS t (term, d)
    GROUP BY c.workspace_id, t.term HAVING sum(t.d) <> 0 ORDER BY 1, 2
    ON CONFLICT (workspace_id, term) DO UPDATE SET docs = asset_terms.docs + excluded.docs;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER asset_terms_insert AFTER INSERT ON assets REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION asset_terms_count();
CREATE TRIGGER asset_terms_update AFTER UPDATE ON assets REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION asset_terms_count();
CREATE TRIGGER asset_terms_delete AFTER DELETE ON assets REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION asset_terms_count();

CREATE OR REPLACE FUNCTION search_changes_log_asset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO search_changes (kind, part, seq) VALUES ('asset', OLD.workspace_id, OLD.seq);
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.lexical_vector IS DISTINCT FROM OLD.lexical_vector THEN
    IF to_jsonb(NEW) - 'lexical_vector' = to_jsonb(OLD) - 'lexical_vector' THEN
      RETURN NULL;
    END IF;
  END IF;
  INSERT INTO search_changes (kind, part, seq) VALUES ('asset', NEW.workspace_id, NEW.seq);
  RETURN NULL;
END $$;
