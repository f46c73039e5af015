-- The built-in OAuth authorization server's state (oidc-provider models: Session, Interaction, Client,
-- AuthorizationCode, RefreshToken, Grant, ... and the signing keys under model 'SigningKeys'), one row
-- per (model, id). `payload` is the model's JSON; `grant_id`, `uid` and `user_code` are the lookups the
-- adapter contract asks for (https://github.com/panva/node-oidc-provider/blob/main/example/my_adapter.js).
-- `expires_at` ms since epoch (null = never); expired rows read as absent and are swept.
CREATE TABLE oauth_state (
  model TEXT NOT NULL,
  id TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid TEXT,
  user_code TEXT,
  expires_at INTEGER,
  consumed_at INTEGER,
  PRIMARY KEY (model, id)
) STRICT;
CREATE INDEX oauth_state_grant ON oauth_state (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_state_uid ON oauth_state (uid) WHERE uid IS NOT NULL;
CREATE INDEX oauth_state_user_code ON oauth_state (user_code) WHERE user_code IS NOT NULL;
-- Operator accounts that sign in to the authorization server (`atelier user create`): a tenant's people,
-- `password_hash` a self-describing scrypt string (server/oauth/passwords.ts). Names are unique overall.
CREATE TABLE operators (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants(id),
  name TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
-- Sign-in failure counters of rate-limiter-flexible (RateLimiterSQLite's own shape, created here so the
-- limiter never runs DDL): shared by every process on the database.
CREATE TABLE oauth_sign_in_limits (
  key TEXT PRIMARY KEY,
  points INTEGER NOT NULL DEFAULT 0,
  expire INTEGER
);
