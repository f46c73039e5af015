-- Vector counts per space and workspace on PostgreSQL (issue 16), so a semantic search never counts a
-- workspace's vectors: the acceptance score needs the workspace's vector count (server/enrichment/
-- vector-search.ts), and the pgvector store the partition size to choose between the exact scan and the
-- HNSW index (server/db/postgres/vector-store.ts `nearest`); both counted the partition per search.
--
-- `asset_vector_counts`: vectors per (space, workspace) of each space's table `asset_vectors_<id>`,
-- kept as asset_counts is (migration 0012) by statement triggers on each table, attached by
-- `asset_vector_counts_attach(id)`: here for the tables that exist, by `ensureSpace` for later ones
-- (and for a table an older process created without them); `retire` deletes a space's rows.

CREATE TABLE asset_vector_counts (
  space_id     bigint NOT NULL REFERENCES vector_spaces (id) ON DELETE CASCADE,
  workspace_id text COLLATE "C" NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  vectors      bigint NOT NULL,
  PRIMARY KEY (space_id, workspace_id)
);

-- TG_ARGV[0]: the space id of the table the trigger is on
CREATE FUNCTION asset_vector_counts_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO asset_vector_counts (space_id, workspace_id, vectors)
    SELECT TG_ARGV[0]::bigint, n.workspace_id, count(*) FROM new_rows n GROUP BY 2 ORDER BY 2
    ON CONFLICT (space_id, workspace_id) DO UPDATE SET vectors = asset_vector_counts.vectors + excluded.vectors;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO asset_vector_counts (space_id, workspace_id, vectors)
    SELECT TG_ARGV[0]::bigint, o.workspace_id, -count(*) FROM old_rows o
    WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = o.workspace_id)
    GROUP BY 2 ORDER BY 2
    ON CONFLICT (space_id, workspace_id) DO UPDATE SET vectors = asset_vector_counts.vectors + excluded.vectors;
  ELSE
    INSERT INTO asset_vector_counts (space_id, workspace_id, vectors)
    SELECT TG_ARGV[0]::bigint, x.workspace_id, x.d FROM (VALUES (OLD.workspace_id, -1), (NEW.workspace_id, 1)) AS x (workspace_id, d)
    WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = x.workspace_id)
    ORDER BY 2
    ON CONFLICT (space_id, workspace_id) DO UPDATE SET vectors = asset_vector_counts.vectors + excluded.vectors;
  END IF;
  RETURN NULL;
END $$;

-- Attach the counters to a space's table (in the caller's schema) and count its rows, when they are not
-- attached yet; creating a trigger locks the table against writes until the caller commits.
CREATE FUNCTION asset_vector_counts_attach(space bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t text := 'asset_vectors_' || space;
BEGIN
  IF to_regclass(t) IS NULL
     OR EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = to_regclass(t) AND tgname = t || '_count_insert') THEN
    RETURN;
  END IF;
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT '
    'EXECUTE FUNCTION asset_vector_counts_change(%s)', t || '_count_insert', t, space);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT '
    'EXECUTE FUNCTION asset_vector_counts_change(%s)', t || '_count_delete', t, space);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE OF workspace_id ON %I FOR EACH ROW '
    'WHEN (OLD.workspace_id IS DISTINCT FROM NEW.workspace_id) EXECUTE FUNCTION asset_vector_counts_change(%s)', t || '_count_move', t, space);
  DELETE FROM asset_vector_counts WHERE space_id = space;
  EXECUTE format('INSERT INTO asset_vector_counts (space_id, workspace_id, vectors) '
    'SELECT %s, v.workspace_id, count(*) FROM %I v WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.id = v.workspace_id) GROUP BY 2',
    space, t);
END $$;

SELECT asset_vector_counts_attach(id) FROM vector_spaces WHERE status <> 'retired';
