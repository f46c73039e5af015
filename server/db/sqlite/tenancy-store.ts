import type { Database } from 'better-sqlite3';
import type { TenancyStore } from '../ports/tenancy-store.ts';
import { createOperatorQueries, createTenancyQueries } from './tenancy.ts';

/**
 * The SQLite `TenancyStore`: an adapter over the synchronous queries of server/db/sqlite/tenancy.ts (tables of
 * migrations 0001, 0030), which it does not change. Composite writes run in one IMMEDIATE transaction.
 * better-sqlite3 is synchronous: each method does its work before it returns its promise.
 */
export function createSqliteTenancyStore(db: Database): TenancyStore {
  const q = createTenancyQueries(db);
  const ops = createOperatorQueries(db);
  return {
    getSetting: async (key) => q.getSetting(key),
    ensureSetting: async (key, value) => q.ensureSetting(key, value),
    insertTenant: async (id, name, at) => q.insertTenant(id, name, at),
    tenant: async (id) => q.tenant(id),
    tenantByName: async (name) => q.tenantByName(name),
    tenantQuota: async (id) => q.tenantQuota(id),
    setTenantQuota: async (id, bytes) => q.setTenantQuota(id, bytes),
    async createWorkspace(w, theme, store, grantLiveKeys) {
      q.transaction(() => {
        q.insertWorkspace(w.id, w.tenant_id, w.name, w.created_at);
        q.insertTheme({ ...theme, is_default: 1 });
        q.insertStore(store);
        if (grantLiveKeys) for (const k of q.keysOfTenant(w.tenant_id)) q.grant(k.id, w.id);
      });
    },
    workspace: async (tenantId, id) => q.workspace(tenantId, id),
    workspacesOfTenant: async (tenantId) => q.workspacesOfTenant(tenantId),
    setWorkspaceStatus: async (tenantId, id, status) => q.setWorkspaceStatus(tenantId, id, status),
    reachableWorkspaces: async (keyId, tenantId) => q.reachableWorkspaces(keyId, tenantId),
    addTheme: async (t, makeDefault) =>
      q.transaction(() => {
        const isDefault = makeDefault || q.themesOfWorkspace(t.tenant_id, t.workspace_id).length === 0;
        if (isDefault) q.clearDefaultTheme(t.tenant_id, t.workspace_id);
        q.insertTheme({ ...t, is_default: isDefault ? 1 : 0 });
        return isDefault;
      }),
    setDefaultTheme: async (tenantId, workspaceId, themeId) =>
      q.transaction(() => {
        if (!q.theme(tenantId, workspaceId, themeId)) return false;
        q.clearDefaultTheme(tenantId, workspaceId);
        return q.setDefaultTheme(tenantId, workspaceId, themeId);
      }),
    theme: async (tenantId, workspaceId, id) => q.theme(tenantId, workspaceId, id),
    themesOfWorkspace: async (tenantId, workspaceId) => q.themesOfWorkspace(tenantId, workspaceId),
    insertStore: async (st) => q.insertStore(st),
    storesOfWorkspace: async (tenantId, workspaceId) => q.storesOfWorkspace(tenantId, workspaceId),
    storeById: async (id) => q.storeById(id),
    async insertKey(k, workspaceIds) {
      q.transaction(() => {
        q.insertKey(k);
        for (const id of workspaceIds) q.grant(k.id, id);
      });
    },
    keyByHash: async (hash) => q.keyByHash(hash),
    keysOfTenant: async (tenantId) => q.keysOfTenant(tenantId),
    allKeysOfTenant: async (tenantId) => q.allKeysOfTenant(tenantId),
    revokeKey: async (tenantId, id, at) => q.revokeKey(tenantId, id, at),
    grantsOfKey: async (keyId) => q.grantsOfKey(keyId),
    grant: async (keyId, workspaceId) => q.grant(keyId, workspaceId),
    operator: {
      workspaceById: async (id) => ops.workspaceById(id),
      activeWorkspaces: async () => ops.activeWorkspaces(),
      keyById: async (id) => ops.keyById(id),
    },
  };
}
