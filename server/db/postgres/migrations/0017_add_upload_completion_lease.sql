-- Upload completion as a lease in the row: the twin of SQLite migration 0058. `completing_until` is
-- epoch ms by the database server's clock (clock_timestamp()), never a process's.
ALTER TABLE uploads ADD COLUMN completing_owner text;
ALTER TABLE uploads ADD COLUMN completing_until bigint;
