import type { OAuthRow, OAuthStore, OperatorRow } from '../ports/oauth-store.ts';
import type { PgPool } from './pool.ts';

interface Raw {
  payload: Record<string, unknown>;
  consumed_at: number | null;
}

/** The OAuth state port over PostgreSQL's `oauth_state` table (migration 0019). */
export function createPgOAuthStore(pool: PgPool): OAuthStore {
  const live = '(expires_at IS NULL OR expires_at > $3)';
  const one = async (col: 'id' | 'uid' | 'user_code', model: string, value: string): Promise<OAuthRow | undefined> => {
    const r = (
      await pool.query<Raw>(`SELECT payload, consumed_at FROM oauth_state WHERE model = $1 AND ${col} = $2 AND ${live}`, [
        model,
        value,
        Date.now(),
      ])
    ).rows[0];
    return r ? { payload: r.payload, consumedAt: r.consumed_at } : undefined;
  };
  return {
    upsert: async (model, id, payload, o) =>
      void (await pool.query(
        `INSERT INTO oauth_state (model, id, payload, grant_id, uid, user_code, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
           user_code = excluded.user_code, expires_at = excluded.expires_at`,
        [model, id, JSON.stringify(payload), o.grantId ?? null, o.uid ?? null, o.userCode ?? null, o.expiresAt],
      )),
    insertIfAbsent: async (model, id, payload) =>
      (
        await pool.query(
          'INSERT INTO oauth_state (model, id, payload, expires_at) VALUES ($1, $2, $3, NULL) ON CONFLICT (model, id) DO NOTHING',
          [model, id, JSON.stringify(payload)],
        )
      ).rowCount === 1,
    find: (model, id) => one('id', model, id),
    findByUid: (model, uid) => one('uid', model, uid),
    findByUserCode: (model, code) => one('user_code', model, code),
    consume: async (model, id) =>
      void (await pool.query('UPDATE oauth_state SET consumed_at = $1 WHERE model = $2 AND id = $3', [Date.now(), model, id])),
    destroy: async (model, id) => void (await pool.query('DELETE FROM oauth_state WHERE model = $1 AND id = $2', [model, id])),
    revokeByGrantId: async (grantId) => void (await pool.query('DELETE FROM oauth_state WHERE grant_id = $1', [grantId])),
    sweep: async () =>
      (await pool.query('DELETE FROM oauth_state WHERE expires_at IS NOT NULL AND expires_at <= $1', [Date.now()])).rowCount ?? 0,
    insertOperator: async (o) =>
      void (await pool.query('INSERT INTO operators (id, tenant_id, name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)', [
        o.id,
        o.tenant_id,
        o.name,
        o.password_hash,
        o.created_at,
      ])),
    operatorByName: async (name) => (await pool.query<OperatorRow>('SELECT * FROM operators WHERE name = $1', [name])).rows[0],
  };
}
