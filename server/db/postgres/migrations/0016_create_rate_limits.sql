-- Rate-limit counters (issue 36 finding 5), in the shape rate-limiter-flexible's RateLimiterPostgres reads
-- and writes (lib/RateLimiterPostgres.js `_getCreateTableStmt`): one row per limiter key prefix and id,
-- points spent in the window, window end in epoch ms. Made here so the limiters run with tableCreated:
-- their own CREATE TABLE IF NOT EXISTS, run by several limiters at once in a new schema, raced on pg_type
-- ("type rate_limits already exists").
CREATE TABLE IF NOT EXISTS rate_limits (
  key    varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
