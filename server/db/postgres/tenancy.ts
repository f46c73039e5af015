import type { ApiKeyRow, NewTheme, StoreRow, TenancyStore, TenantRow, ThemeRow, WorkspaceRow } from '../ports/tenancy-store.ts';
import { inTransaction, isoOf, type PgClient, type PgPool } from './pool.ts';

type Query = Pick<PgClient, 'query'>;

const TENANT = 'id, name, created_at';
const WORKSPACE = 'id, tenant_id, name, status, created_at';
const THEME = 'id, tenant_id, workspace_id, name, brand_colors, brand_tone, is_default, created_at';
const STORE = 'id, tenant_id, workspace_id, name, platform, shop_domain, status, catalog_synced_at, created_at';
const KEY = 'id, tenant_id, name, prefix, key_hash, created_at, revoked_at';

/** timestamptz columns of these tables: read back as Date, handed out as ISO 8601 UTC with ms (the port's shape). */
const TIME_COLUMNS = ['created_at', 'revoked_at', 'catalog_synced_at'] as const;

/** A row with its timestamptz columns as ISO text. */
function iso<T>(r: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...r };
  for (const c of TIME_COLUMNS) if (c in out) out[c] = isoOf(out[c] as Date | null);
  return out as T;
}

async function rows<T>(q: Query, sql: string, params: unknown[]): Promise<T[]> {
  return (await q.query<Record<string, unknown>>(sql, params)).rows.map((r) => iso<T>(r));
}
async function one<T>(q: Query, sql: string, params: unknown[]): Promise<T | undefined> {
  return (await rows<T>(q, sql, params))[0];
}

/** A `themes` row as PostgreSQL gives it: `brand_colors` JSON array text, `is_default` smallint 0 or 1. */
type RawTheme = Omit<ThemeRow, 'brand_colors' | 'is_default'> & { brand_colors: string; is_default: number };
const themeOf = (r: RawTheme): ThemeRow => ({ ...r, brand_colors: JSON.parse(r.brand_colors) as string[], is_default: r.is_default === 1 });

const insertTheme = (c: Query, t: NewTheme, isDefault: boolean): Promise<unknown> =>
  c.query(
    `INSERT INTO themes (id, tenant_id, workspace_id, name, brand_colors, brand_tone, is_default, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [t.id, t.tenant_id, t.workspace_id, t.name, JSON.stringify(t.brand_colors), t.brand_tone, isDefault ? 1 : 0, t.created_at],
  );

/**
 * Lock a workspace's row (FOR NO KEY UPDATE: rows referencing it can still be inserted) until the
 * transaction ends: the serialisation point of default-theme changes, so two concurrent ones can never
 * both clear and set (the partial unique index `themes_one_default` would refuse the second).
 * @returns whether the workspace is the tenant's
 */
const lockWorkspace = async (c: PgClient, tenantId: string, workspaceId: string): Promise<boolean> =>
  (await c.query('SELECT 1 FROM workspaces WHERE tenant_id = $1 AND id = $2 FOR NO KEY UPDATE', [tenantId, workspaceId])).rowCount === 1;

/**
 * The PostgreSQL `TenancyStore` (tables of postgres/migrations/0002). Rows come back in the port's
 * shapes: timestamptz columns as ISO text, `brand_colors` parsed from its JSON text, `is_default` a
 * boolean. Composite writes run in one READ COMMITTED transaction; theme default changes lock the
 * workspace row first.
 */
export function createPgTenancyStore(pool: PgPool): TenancyStore {
  return {
    async getSetting(key) {
      return (await pool.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key])).rows[0]?.value;
    },
    async ensureSetting(key, value) {
      await pool.query('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
      return (await pool.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key])).rows[0]!.value;
    },
    async insertTenant(id, name, at) {
      await pool.query('INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, $3)', [id, name, at]);
    },
    tenant: (id) => one<TenantRow>(pool, `SELECT ${TENANT} FROM tenants WHERE id = $1`, [id]),
    tenantByName: (name) => one<TenantRow>(pool, `SELECT ${TENANT} FROM tenants WHERE name = $1 ORDER BY created_at LIMIT 1`, [name]),
    async tenantQuota(id) {
      return (await pool.query<{ q: number | null }>('SELECT quota_bytes AS q FROM tenants WHERE id = $1', [id])).rows[0]?.q;
    },
    async setTenantQuota(id, bytes) {
      return (await pool.query('UPDATE tenants SET quota_bytes = $1 WHERE id = $2', [bytes, id])).rowCount === 1;
    },
    createWorkspace: (w, theme, store, grantLiveKeys) =>
      inTransaction(pool, async (c) => {
        await c.query(`INSERT INTO workspaces (id, tenant_id, name, status, created_at) VALUES ($1, $2, $3, 'active', $4)`, [
          w.id,
          w.tenant_id,
          w.name,
          w.created_at,
        ]);
        await insertTheme(c, theme, true);
        await c.query(
          `INSERT INTO stores (id, tenant_id, workspace_id, name, platform, shop_domain, status, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'active', $7)`,
          [store.id, store.tenant_id, store.workspace_id, store.name, store.platform, store.shop_domain, store.created_at],
        );
        if (grantLiveKeys)
          await c.query(
            `INSERT INTO api_key_workspaces (api_key_id, workspace_id)
             SELECT id, $2 FROM api_keys WHERE tenant_id = $1 AND revoked_at IS NULL ON CONFLICT DO NOTHING`,
            [w.tenant_id, w.id],
          );
      }),
    workspace: (tenantId, id) =>
      one<WorkspaceRow>(pool, `SELECT ${WORKSPACE} FROM workspaces WHERE tenant_id = $1 AND id = $2`, [tenantId, id]),
    workspacesOfTenant: (tenantId) =>
      rows<WorkspaceRow>(pool, `SELECT ${WORKSPACE} FROM workspaces WHERE tenant_id = $1 ORDER BY created_at, id`, [tenantId]),
    async setWorkspaceStatus(tenantId, id, status) {
      return (
        ((await pool.query('UPDATE workspaces SET status = $1 WHERE tenant_id = $2 AND id = $3', [status, tenantId, id])).rowCount ?? 0) > 0
      );
    },
    reachableWorkspaces: (keyId, tenantId) =>
      rows<WorkspaceRow>(
        pool,
        `SELECT w.id, w.tenant_id, w.name, w.status, w.created_at FROM api_key_workspaces g JOIN workspaces w ON w.id = g.workspace_id
         WHERE g.api_key_id = $1 AND w.tenant_id = $2 ORDER BY w.created_at, w.id`,
        [keyId, tenantId],
      ),
    addTheme: (t, makeDefault) =>
      inTransaction(pool, async (c) => {
        await lockWorkspace(c, t.tenant_id, t.workspace_id);
        const none =
          (await c.query('SELECT 1 FROM themes WHERE tenant_id = $1 AND workspace_id = $2 LIMIT 1', [t.tenant_id, t.workspace_id]))
            .rowCount === 0;
        const isDefault = makeDefault || none;
        if (isDefault)
          await c.query('UPDATE themes SET is_default = 0 WHERE tenant_id = $1 AND workspace_id = $2 AND is_default = 1', [
            t.tenant_id,
            t.workspace_id,
          ]);
        await insertTheme(c, t, isDefault);
        return isDefault;
      }),
    setDefaultTheme: (tenantId, workspaceId, themeId) =>
      inTransaction(pool, async (c) => {
        if (!(await lockWorkspace(c, tenantId, workspaceId))) return false;
        const exists = await c.query('SELECT 1 FROM themes WHERE tenant_id = $1 AND workspace_id = $2 AND id = $3', [
          tenantId,
          workspaceId,
          themeId,
        ]);
        if (exists.rowCount !== 1) return false;
        await c.query('UPDATE themes SET is_default = 0 WHERE tenant_id = $1 AND workspace_id = $2 AND is_default = 1', [
          tenantId,
          workspaceId,
        ]);
        await c.query('UPDATE themes SET is_default = 1 WHERE tenant_id = $1 AND workspace_id = $2 AND id = $3', [
          tenantId,
          workspaceId,
          themeId,
        ]);
        return true;
      }),
    async theme(tenantId, workspaceId, id) {
      const r = await one<RawTheme>(pool, `SELECT ${THEME} FROM themes WHERE tenant_id = $1 AND workspace_id = $2 AND id = $3`, [
        tenantId,
        workspaceId,
        id,
      ]);
      return r && themeOf(r);
    },
    themesOfWorkspace: async (tenantId, workspaceId) =>
      (
        await rows<RawTheme>(
          pool,
          `SELECT ${THEME} FROM themes WHERE tenant_id = $1 AND workspace_id = $2 ORDER BY is_default DESC, created_at, id`,
          [tenantId, workspaceId],
        )
      ).map(themeOf),
    async insertStore(st) {
      await pool.query(
        `INSERT INTO stores (id, tenant_id, workspace_id, name, platform, shop_domain, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'active', $7)`,
        [st.id, st.tenant_id, st.workspace_id, st.name, st.platform, st.shop_domain, st.created_at],
      );
    },
    storesOfWorkspace: (tenantId, workspaceId) =>
      rows<StoreRow>(pool, `SELECT ${STORE} FROM stores WHERE tenant_id = $1 AND workspace_id = $2 ORDER BY created_at, id`, [
        tenantId,
        workspaceId,
      ]),
    storeById: (id) => one<StoreRow>(pool, `SELECT ${STORE} FROM stores WHERE id = $1`, [id]),
    insertKey: (k, workspaceIds) =>
      inTransaction(pool, async (c) => {
        await c.query('INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          k.id,
          k.tenant_id,
          k.name,
          k.prefix,
          k.key_hash,
          k.created_at,
        ]);
        for (const id of workspaceIds)
          await c.query('INSERT INTO api_key_workspaces (api_key_id, workspace_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [k.id, id]);
      }),
    keyByHash: (hash) => one<ApiKeyRow>(pool, `SELECT ${KEY} FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`, [hash]),
    keysOfTenant: (tenantId) =>
      rows<ApiKeyRow>(pool, `SELECT ${KEY} FROM api_keys WHERE tenant_id = $1 AND revoked_at IS NULL`, [tenantId]),
    allKeysOfTenant: (tenantId) =>
      rows<ApiKeyRow>(pool, `SELECT ${KEY} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, id`, [tenantId]),
    async revokeKey(tenantId, id, at) {
      const r = await pool.query('UPDATE api_keys SET revoked_at = $1 WHERE tenant_id = $2 AND id = $3 AND revoked_at IS NULL', [
        at,
        tenantId,
        id,
      ]);
      return (r.rowCount ?? 0) > 0;
    },
    async grantsOfKey(keyId) {
      const r = await pool.query<{ workspace_id: string }>(
        'SELECT workspace_id FROM api_key_workspaces WHERE api_key_id = $1 ORDER BY workspace_id',
        [keyId],
      );
      return r.rows.map((x) => x.workspace_id);
    },
    async grant(keyId, workspaceId) {
      await pool.query('INSERT INTO api_key_workspaces (api_key_id, workspace_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        keyId,
        workspaceId,
      ]);
    },
    operator: {
      workspaceById: (id) => one<WorkspaceRow>(pool, `SELECT ${WORKSPACE} FROM workspaces WHERE id = $1`, [id]),
      activeWorkspaces: () =>
        rows<WorkspaceRow>(pool, `SELECT ${WORKSPACE} FROM workspaces WHERE status = 'active' ORDER BY created_at, id`, []),
      keyById: (id) => one<ApiKeyRow>(pool, `SELECT ${KEY} FROM api_keys WHERE id = $1`, [id]),
    },
  };
}
