-- Job leases: several server processes on one data dir (an HTTP server and stdio servers) share the
-- enrichment queue. A claimed job carries its runner's id and a lease that the runner renews while it
-- works; only a job whose lease ran out (its process died) goes back to the queue, so a process that
-- starts no longer takes over jobs another live process is running. Rows without a lease (from before
-- this migration) count as expired.
ALTER TABLE enrichment_jobs ADD COLUMN lease_owner TEXT;
ALTER TABLE enrichment_jobs ADD COLUMN lease_until INTEGER; -- epoch ms
