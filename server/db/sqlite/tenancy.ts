import type { Database } from 'better-sqlite3';
import type { ApiKeyRow, StoreRow, ThemeRow, WorkspaceRow } from '../ports/tenancy-store.ts';

/** Queries over tenants, workspaces, themes, stores and API keys. Statements are prepared once. */
export function createTenancyQueries(db: Database) {
  const s = {
    insertTenant: db.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)'),
    tenant: db.prepare('SELECT id, name, created_at FROM tenants WHERE id = ?'),
    tenantByName: db.prepare('SELECT id, name, created_at FROM tenants WHERE name = ? ORDER BY created_at LIMIT 1'),
    tenantQuota: db.prepare('SELECT quota_bytes AS q FROM tenants WHERE id = ?'),
    setTenantQuota: db.prepare('UPDATE tenants SET quota_bytes = ? WHERE id = ?'),
    insertWorkspace: db.prepare("INSERT INTO workspaces (id, tenant_id, name, status, created_at) VALUES (?, ?, ?, 'active', ?)"),
    workspace: db.prepare('SELECT * FROM workspaces WHERE tenant_id = ? AND id = ?'),
    workspacesOfTenant: db.prepare('SELECT * FROM workspaces WHERE tenant_id = ? ORDER BY created_at, id'),
    setWorkspaceStatus: db.prepare('UPDATE workspaces SET status = ? WHERE tenant_id = ? AND id = ?'),
    insertTheme: db.prepare(
      'INSERT INTO themes (id, tenant_id, workspace_id, name, brand_colors, brand_tone, is_default, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    clearDefaultTheme: db.prepare('UPDATE themes SET is_default = 0 WHERE tenant_id = ? AND workspace_id = ? AND is_default = 1'),
    setDefaultTheme: db.prepare('UPDATE themes SET is_default = 1 WHERE tenant_id = ? AND workspace_id = ? AND id = ?'),
    theme: db.prepare('SELECT * FROM themes WHERE tenant_id = ? AND workspace_id = ? AND id = ?'),
    themesOfWorkspace: db.prepare('SELECT * FROM themes WHERE tenant_id = ? AND workspace_id = ? ORDER BY is_default DESC, created_at, id'),
    insertStore: db.prepare(
      "INSERT INTO stores (id, tenant_id, workspace_id, name, platform, shop_domain, status, created_at) VALUES (?, ?, ?, ?, ?, ?, 'active', ?)",
    ),
    storesOfWorkspace: db.prepare('SELECT * FROM stores WHERE tenant_id = ? AND workspace_id = ? ORDER BY created_at, id'),
    store: db.prepare('SELECT * FROM stores WHERE id = ?'),
    insertKey: db.prepare('INSERT INTO api_keys (id, tenant_id, name, prefix, key_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
    keyByHash: db.prepare('SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL'),
    keysOfTenant: db.prepare('SELECT * FROM api_keys WHERE tenant_id = ? AND revoked_at IS NULL'),
    allKeysOfTenant: db.prepare('SELECT * FROM api_keys WHERE tenant_id = ? ORDER BY created_at, id'),
    revokeKey: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND id = ? AND revoked_at IS NULL'),
    grantsOfKey: db.prepare('SELECT workspace_id FROM api_key_workspaces WHERE api_key_id = ? ORDER BY workspace_id'),
    grant: db.prepare('INSERT OR IGNORE INTO api_key_workspaces (api_key_id, workspace_id) VALUES (?, ?)'),
    reachable: db.prepare(
      `SELECT w.* FROM api_key_workspaces g JOIN workspaces w ON w.id = g.workspace_id
       WHERE g.api_key_id = ? AND w.tenant_id = ? ORDER BY w.created_at, w.id`,
    ),
    getSetting: db.prepare('SELECT value FROM settings WHERE key = ?'),
    putSetting: db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING'),
  };
  return {
    insertTenant: (id: string, name: string, at: string): void => void s.insertTenant.run(id, name, at),
    tenant: (id: string) => s.tenant.get(id) as { id: string; name: string; created_at: string } | undefined,
    tenantByName: (name: string) => s.tenantByName.get(name) as { id: string; name: string; created_at: string } | undefined,
    tenantQuota: (id: string) => (s.tenantQuota.get(id) as { q: number | null } | undefined)?.q,
    setTenantQuota: (id: string, bytes: number | null): boolean => s.setTenantQuota.run(bytes, id).changes === 1,
    insertWorkspace: (id: string, tenantId: string, name: string, at: string): void => void s.insertWorkspace.run(id, tenantId, name, at),
    workspace: (tenantId: string, id: string) => s.workspace.get(tenantId, id) as WorkspaceRow | undefined,
    workspacesOfTenant: (tenantId: string) => s.workspacesOfTenant.all(tenantId) as WorkspaceRow[],
    setWorkspaceStatus: (tenantId: string, id: string, status: 'active' | 'archived'): boolean =>
      s.setWorkspaceStatus.run(status, tenantId, id).changes > 0,
    /** Insert a theme; `is_default` 1 must follow `clearDefaultTheme` in the same transaction (one default per workspace). */
    insertTheme: (t: Omit<ThemeRow, 'brand_colors'> & { brand_colors: string[] }): void =>
      void s.insertTheme.run(
        t.id,
        t.tenant_id,
        t.workspace_id,
        t.name,
        JSON.stringify(t.brand_colors),
        t.brand_tone,
        t.is_default,
        t.created_at,
      ),
    clearDefaultTheme: (tenantId: string, workspaceId: string): void => void s.clearDefaultTheme.run(tenantId, workspaceId),
    setDefaultTheme: (tenantId: string, workspaceId: string, themeId: string): boolean =>
      s.setDefaultTheme.run(tenantId, workspaceId, themeId).changes > 0,
    theme: (tenantId: string, workspaceId: string, id: string) => s.theme.get(tenantId, workspaceId, id) as ThemeRow | undefined,
    themesOfWorkspace: (tenantId: string, workspaceId: string) => s.themesOfWorkspace.all(tenantId, workspaceId) as ThemeRow[],
    insertStore: (st: {
      id: string;
      tenant_id: string;
      workspace_id: string;
      name: string;
      platform: string;
      shop_domain: string | null;
      created_at: string;
    }): void => void s.insertStore.run(st.id, st.tenant_id, st.workspace_id, st.name, st.platform, st.shop_domain, st.created_at),
    storesOfWorkspace: (tenantId: string, workspaceId: string) => s.storesOfWorkspace.all(tenantId, workspaceId) as StoreRow[],
    /** Unscoped lookup for operator commands (CLI). Never call from an action. */
    storeById: (id: string) => s.store.get(id) as StoreRow | undefined,
    insertKey: (k: Omit<ApiKeyRow, 'revoked_at'>): void =>
      void s.insertKey.run(k.id, k.tenant_id, k.name, k.prefix, k.key_hash, k.created_at),
    keyByHash: (hash: string) => s.keyByHash.get(hash) as ApiKeyRow | undefined,
    keysOfTenant: (tenantId: string) => s.keysOfTenant.all(tenantId) as ApiKeyRow[],
    /** Every key of a tenant, revoked ones included (operator listing). */
    allKeysOfTenant: (tenantId: string) => s.allKeysOfTenant.all(tenantId) as ApiKeyRow[],
    /** Revoke a live key; false when it is unknown, of another tenant or already revoked. */
    revokeKey: (tenantId: string, id: string, at: string): boolean => s.revokeKey.run(at, tenantId, id).changes > 0,
    grantsOfKey: (keyId: string) => (s.grantsOfKey.all(keyId) as { workspace_id: string }[]).map((r) => r.workspace_id),
    grant: (keyId: string, workspaceId: string): void => void s.grant.run(keyId, workspaceId),
    /** Workspaces (any status) an API key is granted, within its tenant. */
    reachableWorkspaces: (keyId: string, tenantId: string) => s.reachable.all(keyId, tenantId) as WorkspaceRow[],
    getSetting: (key: string) => (s.getSetting.get(key) as { value: string } | undefined)?.value,
    /** Insert a setting if absent (first writer wins); returns the stored value. */
    ensureSetting: (key: string, value: string): string => {
      s.putSetting.run(key, value);
      return (s.getSetting.get(key) as { value: string }).value;
    },
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}
export type TenancyQueries = ReturnType<typeof createTenancyQueries>;

/** Operator-only lookups across tenants (CLI). Never reachable from an MCP action. */
export function createOperatorQueries(db: Database) {
  return {
    workspaceById: (id: string) => db.prepare('SELECT * FROM workspaces WHERE id = ?').get(id) as WorkspaceRow | undefined,
    activeWorkspaces: () => db.prepare("SELECT * FROM workspaces WHERE status = 'active' ORDER BY created_at, id").all() as WorkspaceRow[],
    keyById: (id: string) => db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as ApiKeyRow | undefined,
  };
}
