-- Rate-limit counters (issue 36), in the shape rate-limiter-flexible's RateLimiterPostgres reads and writes
-- (its own CREATE TABLE IF NOT EXISTS, here so that the limiter runs with tableCreated: its four limiters
-- creating the table at once in a new schema raced on pg_type: "type rate_limits already exists").
CREATE TABLE IF NOT EXISTS rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
