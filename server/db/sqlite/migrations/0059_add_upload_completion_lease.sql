-- Upload completion as a lease in the row (issue 35 item 6): the process completing a session holds it
-- (`completing_owner`, until `completing_until`, epoch ms by SQLite's clock) and renews it while it
-- assembles and imports; another process's complete, abort or sweep sees the live lease, and a crashed
-- completer's lease lapses within seconds so a retry takes over.
ALTER TABLE uploads ADD COLUMN completing_owner TEXT;
ALTER TABLE uploads ADD COLUMN completing_until INTEGER;
