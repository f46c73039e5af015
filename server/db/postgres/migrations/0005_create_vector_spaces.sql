-- Vector spaces on PostgreSQL (issue 16): the twin of the SQLite `vector_spaces` (server/db/migrations
-- 0003). A space is one embedding model (model id + dimensions) of one purpose; its vectors live in a
-- table of their own, `asset_vectors_<id>`, created by server/db/postgres/vector-store.ts `ensureSpace`
-- with a pgvector `vector(<dimensions>)` column and dropped when the space is retired (see that file
-- for why a table per space).
--
-- pgvector (https://github.com/pgvector/pgvector) is not part of PostgreSQL and many servers lack it
-- (Debian has no package for PostgreSQL 15). This migration installs it when the server offers it
-- and does nothing more otherwise, so the other stores migrate either way; the vector store then
-- reports itself unavailable with the reason (`available()`). It goes into schema public, once per
-- database, like unaccent (0004). Creating it needs a superuser (pgvector is not a trusted extension);
-- without the privilege the migration goes on and the store reports what to run.

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector SCHEMA public;
  END IF;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'pgvector is offered but this user may not create it: run CREATE EXTENSION vector SCHEMA public as a superuser';
END $$;

CREATE TABLE vector_spaces (
  id         bigserial PRIMARY KEY,
  purpose    text NOT NULL CHECK (purpose IN ('asset_text', 'asset_visual')),
  model_id   text NOT NULL,
  dimensions integer NOT NULL CHECK (dimensions > 0 AND dimensions <= 16000),
  status     text NOT NULL CHECK (status IN ('building', 'ready', 'retired')),
  created_at timestamptz NOT NULL,
  UNIQUE (purpose, model_id, dimensions)
);
