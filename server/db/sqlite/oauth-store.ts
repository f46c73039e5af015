import type { Database } from 'better-sqlite3';
import type { OAuthRow, OAuthStore, OperatorRow } from '../ports/oauth-store.ts';

interface Raw {
  payload: string;
  consumed_at: number | null;
}

/** The OAuth state port over SQLite's `oauth_state` table (migration 0061). */
export function createSqliteOAuthStore(db: Database): OAuthStore {
  const live = '(expires_at IS NULL OR expires_at > ?)';
  const s = {
    upsert: db.prepare(
      `INSERT INTO oauth_state (model, id, payload, grant_id, uid, user_code, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
         user_code = excluded.user_code, expires_at = excluded.expires_at`,
    ),
    insertIfAbsent: db.prepare(
      'INSERT INTO oauth_state (model, id, payload, expires_at) VALUES (?, ?, ?, NULL) ON CONFLICT (model, id) DO NOTHING',
    ),
    find: db.prepare(`SELECT payload, consumed_at FROM oauth_state WHERE model = ? AND id = ? AND ${live}`),
    byUid: db.prepare(`SELECT payload, consumed_at FROM oauth_state WHERE model = ? AND uid = ? AND ${live}`),
    byUserCode: db.prepare(`SELECT payload, consumed_at FROM oauth_state WHERE model = ? AND user_code = ? AND ${live}`),
    consume: db.prepare('UPDATE oauth_state SET consumed_at = ? WHERE model = ? AND id = ?'),
    destroy: db.prepare('DELETE FROM oauth_state WHERE model = ? AND id = ?'),
    byGrant: db.prepare('DELETE FROM oauth_state WHERE grant_id = ?'),
    sweep: db.prepare('DELETE FROM oauth_state WHERE expires_at IS NOT NULL AND expires_at <= ?'),
    insertOperator: db.prepare('INSERT INTO operators (id, tenant_id, name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)'),
    operatorByName: db.prepare('SELECT * FROM operators WHERE name = ?'),
  };
  const row = (r: Raw | undefined): OAuthRow | undefined =>
    r ? { payload: JSON.parse(r.payload) as Record<string, unknown>, consumedAt: r.consumed_at } : undefined;
  return {
    upsert: async (model, id, payload, o) =>
      void s.upsert.run(model, id, JSON.stringify(payload), o.grantId ?? null, o.uid ?? null, o.userCode ?? null, o.expiresAt),
    insertIfAbsent: async (model, id, payload) => s.insertIfAbsent.run(model, id, JSON.stringify(payload)).changes === 1,
    find: async (model, id) => row(s.find.get(model, id, Date.now()) as Raw | undefined),
    findByUid: async (model, uid) => row(s.byUid.get(model, uid, Date.now()) as Raw | undefined),
    findByUserCode: async (model, code) => row(s.byUserCode.get(model, code, Date.now()) as Raw | undefined),
    consume: async (model, id) => void s.consume.run(Date.now(), model, id),
    destroy: async (model, id) => void s.destroy.run(model, id),
    revokeByGrantId: async (grantId) => void s.byGrant.run(grantId),
    sweep: async () => s.sweep.run(Date.now()).changes,
    insertOperator: async (o) => void s.insertOperator.run(o.id, o.tenant_id, o.name, o.password_hash, o.created_at),
    operatorByName: async (name) => s.operatorByName.get(name) as OperatorRow | undefined,
  };
}
