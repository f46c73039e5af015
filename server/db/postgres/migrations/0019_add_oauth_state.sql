-- The built-in OAuth authorization server's state: the twin of SQLite migration 0061 (one row per
-- oidc-provider model instance; `expires_at`/`consumed_at` ms since epoch).
CREATE TABLE oauth_state (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  uid text,
  user_code text,
  expires_at bigint,
  consumed_at bigint,
  PRIMARY KEY (model, id)
);
CREATE INDEX oauth_state_grant ON oauth_state (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_state_uid ON oauth_state (uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_state_user_code ON oauth_state (user_code) WHERE user_code IS NOT NULL;
CREATE TABLE operators (
  id text PRIMARY KEY,
  tenant_id text NOT NULL REFERENCES tenants(id),
  name text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  created_at text NOT NULL
);
-- RateLimiterPostgres's own shape, created here so the limiter never runs DDL (tableCreated: true)
CREATE TABLE oauth_sign_in_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
