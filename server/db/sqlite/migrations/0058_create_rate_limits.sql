-- Rate-limit counters (issue 36 finding 5), in the shape rate-limiter-flexible's RateLimiterSQLite reads
-- and writes (lib/RateLimiterSQLite.js `_getCreateTableSQL`): one row per limiter key prefix and id
-- (`cheap_key:<api key id>`, `costly_tenant:<tenant id>` …), points spent in the window, window end in
-- epoch ms. Made here so the limiters run with tableCreated: true and every process on the file shares it.
CREATE TABLE IF NOT EXISTS rate_limits (
  key    TEXT PRIMARY KEY,
  points INTEGER NOT NULL DEFAULT 0,
  expire INTEGER
);
