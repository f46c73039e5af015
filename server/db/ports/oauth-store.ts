/**
 * One stored oidc-provider model instance: `payload` its JSON object as the library gave it.
 * `expiresAt` ms since epoch (null = never); `consumedAt` ms since epoch once consumed.
 */
export interface OAuthRow {
  payload: Record<string, unknown>;
  consumedAt: number | null;
}

/** An operator account of a tenant (`atelier user create`); `password_hash` from server/oauth/passwords.ts. */
export interface OperatorRow {
  id: string;
  tenant_id: string;
  name: string;
  password_hash: string;
  created_at: string;
}

/**
 * Port: the built-in authorization server's state, keyed by (model, id), with the lookups of the
 * oidc-provider adapter contract (by uid, by user code, all of a grant). Rows past `expiresAt` read as
 * absent. Also the operator accounts that sign in. Implementations: SQLite (server/db/sqlite/oauth-store.ts,
 * migration 0061) and PostgreSQL (server/db/postgres/oauth-state.ts, migration 0019).
 */
export interface OAuthStore {
  upsert(
    model: string,
    id: string,
    payload: Record<string, unknown>,
    o: { expiresAt: number | null; grantId?: string; uid?: string; userCode?: string },
  ): Promise<void>;
  /**
   * Write a row that never expires unless one with this (model, id) exists (first writer wins: two
   * processes starting on an empty database agree on one signing key). @returns whether it was written
   */
  insertIfAbsent(model: string, id: string, payload: Record<string, unknown>): Promise<boolean>;
  find(model: string, id: string): Promise<OAuthRow | undefined>;
  findByUid(model: string, uid: string): Promise<OAuthRow | undefined>;
  findByUserCode(model: string, userCode: string): Promise<OAuthRow | undefined>;
  /** Mark consumed now (codes are single-use: the library refuses a consumed one). */
  consume(model: string, id: string): Promise<void>;
  destroy(model: string, id: string): Promise<void>;
  /** Delete every row of a grant (all models). */
  revokeByGrantId(grantId: string): Promise<void>;
  /** Delete rows past their expiry. @returns how many */
  sweep(): Promise<number>;
  /** @throws the driver's unique-violation error when the name is taken */
  insertOperator(o: OperatorRow): Promise<void>;
  operatorByName(name: string): Promise<OperatorRow | undefined>;
}
