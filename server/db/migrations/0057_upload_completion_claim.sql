-- A `complete` in progress holds its upload session in the row, not in the process (issue 35): until
-- `completing_until_ms` (epoch ms) no other process completes, aborts, adds chunks to or sweeps it; a
-- process that dies mid-complete holds it only until then. NULL = not being completed.
ALTER TABLE uploads ADD COLUMN completing_until_ms INTEGER;
