import type { Database } from 'better-sqlite3';
import type { ApiKeyRow, NewTheme, StoreRow, TenancyStore, TenantRow, ThemeRow, WorkspaceRow } from '../ports/tenancy-store.ts';

const TENANT = 'id, name, created_at';
const WORKSPACE = 'id, tenant_id, name, status, created_at';
const THEME = 'id, tenant_id, workspace_id, name, brand_colors, brand_tone, is_default, created_at';
const STORE = 'id, tenant_id, workspace_id, name, platform, shop_domain, status, catalog_synced_at, created_at';
const KEY = 'id, tenant_id, name, prefix, key_hash, created_at, revoked_at';

/** A `themes` row as SQLite gives it: `brand_colors` JSON array text, `is_default` 0 or 1. */
type RawTheme = Omit<ThemeRow, 'brand_colors' | 'is_default'> & { brand_colors: string; is_default: 0 | 1 };
const themeOf = (r: RawTheme): ThemeRow => ({ ...r, brand_colors: JSON.parse(r.brand_colors) as string[], is_default: r.is_default === 1 });

/** Every statement of the store, prepared once per connection. */
function statements(db: Database) {
  return {
    getSetting: db.prepare<[string], string>('SELECT value FROM settings WHERE key = ?').pluck(),
    putSetting: db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING'),
    insertTenant: db.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)'),
    tenant: db.prepare<[string], TenantRow>(`SELECT ${TENANT} FROM tenants WHERE id = ?`),
    tenantByName: db.prepare<[string], TenantRow>(`SELECT ${TENANT} FROM tenants WHERE name = ? ORDER BY created_at LIMIT 1`),
    tenantQuota: db.prepare<[string], { q: number | null }>('SELECT quota_bytes AS q FROM tenants WHERE id = ?'),
    setTenantQuota: db.prepare('UPDATE tenants SET quota_bytes = ? WHERE id = ?'),
    insertWorkspace: db.prepare("INSERT INTO workspaces (id, tenant_id, name, status, created_at) VALUES (?, ?, ?, 'active', ?)"),
    workspace: db.prepare<[string, string], WorkspaceRow>(`SELECT ${WORKSPACE} FROM workspaces WHERE tenant_id = ? AND id = ?`),
    workspacesOfTenant: db.prepare<[string], WorkspaceRow>(
      `SELECT ${WORKSPACE} FROM workspaces WHERE tenant_id = ? ORDER BY created_at, id`,
    ),
    setWorkspaceStatus: db.prepare('UPDATE workspaces SET status = ? WHERE tenant_id = ? AND id = ?'),
    reachable: db.prepare<[string, string], WorkspaceRow>(
      `SELECT w.id, w.tenant_id, w.name, w.status, w.created_at FROM api_key_workspaces g JOIN workspaces w ON w.id = g.workspace_id
       WHERE g.api_key_id = ? AND w.tenant_id = ? ORDER BY w.created_at, w.id`,
    ),
    insertTheme: db.prepare(
      'INSERT INTO themes (id, tenant_id, workspace_id, name, brand_colors, brand_tone, is_default, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    anyTheme: db.prepare('SELECT 1 FROM themes WHERE tenant_id = ? AND workspace_id = ? LIMIT 1'),
    clearDefaultTheme: db.prepare('UPDATE themes SET is_default = 0 WHERE tenant_id = ? AND workspace_id = ? AND is_default = 1'),
    setDefaultTheme: db.prepare('UPDATE themes SET is_default = 1 WHERE tenant_id = ? AND workspace_id = ? AND id = ?'),
    theme: db.prepare<[string, string, string], RawTheme>(
      `SELECT ${THEME} FROM themes WHERE tenant_id = ? AND workspace_id = ? AND id = ?`,
    ),
    themesOfWorkspace: db.prepare<[string, string], RawTheme>(
      `SELECT ${THEME} FROM themes WHERE tenant_id = ? AND workspace_id = ? ORDER BY is_default DESC, created_at, id`,
    ),
    insertStore: db.prepare(
      "INSERT INTO stores (id, tenant_id, workspace_id, name, platform, shop_domain, status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'active', ?)",
    ),
    storesOfWorkspace: db.prepare<[string, string], StoreRow>(
      `SELECT ${STORE} FROM stores WHERE tenant_id = ? AND workspace_id = ? ORDER BY created_at, id`,
    ),
    storeById: db.prepare<[string], StoreRow>(`SELECT ${STORE} FROM stores WHERE id = ?`),
    insertKey: db.prepare('INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
    keyByHash: db.prepare<[string], ApiKeyRow>(`SELECT ${KEY} FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL`),
    keysOfTenant: db.prepare<[string], ApiKeyRow>(`SELECT ${KEY} FROM api_keys WHERE tenant_id = ? AND revoked_at IS NULL`),
    allKeysOfTenant: db.prepare<[string], ApiKeyRow>(`SELECT ${KEY} FROM api_keys WHERE tenant_id = ? ORDER BY created_at, id`),
    revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL'),
    grantsOfKey: db
      .prepare<[string], string>('SELECT workspace_id FROM api_key_workspaces WHERE api_key_id = ? ORDER BY workspace_id')
      .pluck(),
    grant: db.prepare('INSERT OR IGNORE INTO api_key_workspaces (api_key_id, workspace_id) VALUES (?, ?)'),
    workspaceById: db.prepare<[string], WorkspaceRow>(`SELECT ${WORKSPACE} FROM workspaces WHERE id = ?`),
    activeWorkspaces: db.prepare<[], WorkspaceRow>(`SELECT ${WORKSPACE} FROM workspaces WHERE status = 'active' ORDER BY created_at, id`),
    keyById: db.prepare<[string], ApiKeyRow>(`SELECT ${KEY} FROM api_keys WHERE id = ?`),
  };
}
type Statements = ReturnType<typeof statements>;

/** The settings and tenant methods: single statements. */
function tenantMethods(
  s: Statements,
): Pick<TenancyStore, 'getSetting' | 'ensureSetting' | 'insertTenant' | 'tenant' | 'tenantByName' | 'tenantQuota' | 'setTenantQuota'> {
  return {
    getSetting: async (key) => s.getSetting.get(key),
    async ensureSetting(key, value) {
      // first writer wins, across connections: the stored value is read back
      s.putSetting.run(key, value);
      return s.getSetting.get(key)!;
    },
    insertTenant: async (id, name, at) => void s.insertTenant.run(id, name, at),
    tenant: async (id) => s.tenant.get(id),
    tenantByName: async (name) => s.tenantByName.get(name),
    tenantQuota: async (id) => s.tenantQuota.get(id)?.q,
    setTenantQuota: async (id, bytes) => s.setTenantQuota.run(bytes, id).changes === 1,
  };
}

/** The workspace and store methods; `createWorkspace` is one IMMEDIATE transaction. */
function workspaceMethods(
  db: Database,
  s: Statements,
): Pick<
  TenancyStore,
  | 'createWorkspace'
  | 'workspace'
  | 'workspacesOfTenant'
  | 'setWorkspaceStatus'
  | 'reachableWorkspaces'
  | 'insertStore'
  | 'storesOfWorkspace'
  | 'storeById'
> {
  const createWorkspace = db.transaction((...[w, theme, store, grantLiveKeys]: Parameters<TenancyStore['createWorkspace']>) => {
    s.insertWorkspace.run(w.id, w.tenant_id, w.name, w.created_at);
    insertTheme(s, theme, true);
    s.insertStore.run(store.id, store.tenant_id, store.workspace_id, store.name, store.platform, store.shop_domain, store.created_at);
    if (grantLiveKeys) for (const k of s.keysOfTenant.all(w.tenant_id)) s.grant.run(k.id, w.id);
  });
  return {
    createWorkspace: async (w, theme, store, grantLiveKeys) => createWorkspace.immediate(w, theme, store, grantLiveKeys),
    workspace: async (tenantId, id) => s.workspace.get(tenantId, id),
    workspacesOfTenant: async (tenantId) => s.workspacesOfTenant.all(tenantId),
    setWorkspaceStatus: async (tenantId, id, status) => s.setWorkspaceStatus.run(status, tenantId, id).changes > 0,
    reachableWorkspaces: async (keyId, tenantId) => s.reachable.all(keyId, tenantId),
    insertStore: async (st) =>
      void s.insertStore.run(st.id, st.tenant_id, st.workspace_id, st.name, st.platform, st.shop_domain, st.created_at),
    storesOfWorkspace: async (tenantId, workspaceId) => s.storesOfWorkspace.all(tenantId, workspaceId),
    storeById: async (id) => s.storeById.get(id),
  };
}

/** Insert a theme; a default one must follow `clearDefaultTheme` in the same transaction (one default per workspace). */
function insertTheme(s: Statements, t: NewTheme, isDefault: boolean): void {
  s.insertTheme.run(
    t.id,
    t.tenant_id,
    t.workspace_id,
    t.name,
    JSON.stringify(t.brand_colors),
    t.brand_tone,
    isDefault ? 1 : 0,
    t.created_at,
  );
}

/** The theme methods; default changes are IMMEDIATE transactions, so the write lock serialises them across processes. */
function themeMethods(db: Database, s: Statements): Pick<TenancyStore, 'addTheme' | 'setDefaultTheme' | 'theme' | 'themesOfWorkspace'> {
  const addTheme = db.transaction((t: NewTheme, makeDefault: boolean): boolean => {
    const isDefault = makeDefault || s.anyTheme.get(t.tenant_id, t.workspace_id) === undefined;
    if (isDefault) s.clearDefaultTheme.run(t.tenant_id, t.workspace_id);
    insertTheme(s, t, isDefault);
    return isDefault;
  });
  const setDefault = db.transaction((tenantId: string, workspaceId: string, themeId: string): boolean => {
    if (!s.theme.get(tenantId, workspaceId, themeId)) return false;
    s.clearDefaultTheme.run(tenantId, workspaceId);
    return s.setDefaultTheme.run(tenantId, workspaceId, themeId).changes > 0;
  });
  return {
    addTheme: async (t, makeDefault) => addTheme.immediate(t, makeDefault),
    setDefaultTheme: async (tenantId, workspaceId, themeId) => setDefault.immediate(tenantId, workspaceId, themeId),
    async theme(tenantId, workspaceId, id) {
      const r = s.theme.get(tenantId, workspaceId, id);
      return r && themeOf(r);
    },
    themesOfWorkspace: async (tenantId, workspaceId) => s.themesOfWorkspace.all(tenantId, workspaceId).map(themeOf),
  };
}

/** The API key and grant methods; `insertKey` is one IMMEDIATE transaction. */
function keyMethods(
  db: Database,
  s: Statements,
): Pick<TenancyStore, 'insertKey' | 'keyByHash' | 'keysOfTenant' | 'allKeysOfTenant' | 'revokeKey' | 'grantsOfKey' | 'grant'> {
  const insertKey = db.transaction((...[k, workspaceIds]: Parameters<TenancyStore['insertKey']>) => {
    s.insertKey.run(k.id, k.tenant_id, k.name, k.prefix, k.key_hash, k.created_at);
    for (const id of workspaceIds) s.grant.run(k.id, id);
  });
  return {
    insertKey: async (k, workspaceIds) => insertKey.immediate(k, workspaceIds),
    keyByHash: async (hash) => s.keyByHash.get(hash),
    keysOfTenant: async (tenantId) => s.keysOfTenant.all(tenantId),
    allKeysOfTenant: async (tenantId) => s.allKeysOfTenant.all(tenantId),
    revokeKey: async (tenantId, id, at) => s.revokeKey.run(at, tenantId, id).changes > 0,
    grantsOfKey: async (keyId) => s.grantsOfKey.all(keyId),
    grant: async (keyId, workspaceId) => void s.grant.run(keyId, workspaceId),
  };
}

/**
 * The SQLite `TenancyStore` (tables of migrations 0001, 0030): tenants, workspaces, themes, stores, API
 * keys with their grants, and `settings`. Rows come back in the port's shapes: `brand_colors` parsed from
 * its JSON text, `is_default` a boolean. Composite writes (`createWorkspace`, `addTheme`,
 * `setDefaultTheme`, `insertKey`) each run in one IMMEDIATE transaction: the write lock is taken before
 * the first read, so a writer of another process waits instead of breaking it (see transactions.test.ts).
 * better-sqlite3 is synchronous: each method does its work before it returns its promise.
 */
export function createSqliteTenancyStore(db: Database): TenancyStore {
  const s = statements(db);
  return {
    ...tenantMethods(s),
    ...workspaceMethods(db, s),
    ...themeMethods(db, s),
    ...keyMethods(db, s),
    operator: {
      workspaceById: async (id) => s.workspaceById.get(id),
      activeWorkspaces: async () => s.activeWorkspaces.all(),
      keyById: async (id) => s.keyById.get(id),
    },
  };
}
