import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { TenancyQueries } from '../db/tenancy.ts';
import type { Principal } from '../domain/scope.ts';

/** The five ids an operator needs, as printed by `atelier tenant create --json` and `seed-demo --json`. */
export interface TenantBundle {
  tenant_id: string;
  workspace_id: string;
  theme_id: string;
  store_id: string;
  api_key: string;
}

/** sha256 hex of an API key: only this is stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new API key: `atl_` + 32 random bytes base64url (256 bits). */
export function newApiKey(): string {
  return `atl_${randomBytes(32).toString('base64url')}`;
}

/**
 * Create a workspace with its default theme and store, granting every live key of the tenant access.
 * @returns the new workspace, theme and store ids
 */
export function createWorkspace(
  t: TenancyQueries,
  tenantId: string,
  name: string,
  opts: { brandColors?: string[]; grantKeys?: boolean } = {},
): { workspace_id: string; theme_id: string; store_id: string } {
  const at = new Date().toISOString();
  const workspace_id = randomUUID();
  const theme_id = randomUUID();
  const store_id = randomUUID();
  t.transaction(() => {
    t.insertWorkspace(workspace_id, tenantId, name, at);
    t.insertTheme({
      id: theme_id,
      tenant_id: tenantId,
      workspace_id,
      name: `${name} theme`,
      brand_colors: opts.brandColors ?? [],
      brand_tone: null,
      is_default: 1,
      created_at: at,
    });
    t.insertStore({
      id: store_id,
      tenant_id: tenantId,
      workspace_id,
      name: `${name} store`,
      platform: 'shopify',
      shop_domain: null,
      created_at: at,
    });
    if (opts.grantKeys !== false) for (const k of t.keysOfTenant(tenantId)) t.grant(k.id, workspace_id);
  });
  return { workspace_id, theme_id, store_id };
}

/**
 * Create an API key for a tenant reaching the given workspaces (default: all of the tenant's).
 * @throws Error when a workspace id is not the tenant's
 * @returns the key (shown once) and its id
 */
export function createApiKey(
  t: TenancyQueries,
  tenantId: string,
  opts: { name?: string; workspaceIds?: string[] } = {},
): { api_key: string; api_key_id: string } {
  const own = t.workspacesOfTenant(tenantId);
  const ids = opts.workspaceIds && opts.workspaceIds.length > 0 ? opts.workspaceIds : own.map((w) => w.id);
  for (const id of ids) if (!own.some((w) => w.id === id)) throw new Error(`workspace ${id} does not belong to tenant ${tenantId}`);
  const api_key = newApiKey();
  const api_key_id = randomUUID();
  t.transaction(() => {
    t.insertKey({
      id: api_key_id,
      tenant_id: tenantId,
      name: opts.name ?? 'default',
      prefix: api_key.slice(0, 10),
      key_hash: hashKey(api_key),
      created_at: new Date().toISOString(),
    });
    for (const id of ids) t.grant(api_key_id, id);
  });
  return { api_key, api_key_id };
}

/** Create a tenant with one active workspace, theme, store and API key. */
export function createTenant(t: TenancyQueries, name: string, opts: { brandColors?: string[] } = {}): TenantBundle {
  const tenant_id = randomUUID();
  t.insertTenant(tenant_id, name, new Date().toISOString());
  const ws = createWorkspace(t, tenant_id, name, { ...opts, grantKeys: false });
  const key = createApiKey(t, tenant_id, { name: 'default' });
  return { tenant_id, ...ws, api_key: key.api_key };
}

/**
 * Add a theme to a workspace. The first theme of a workspace, or one created with `makeDefault`, becomes
 * its default (the previous default is cleared in the same transaction).
 * @throws Error when the workspace is not the tenant's
 */
export function createTheme(
  t: TenancyQueries,
  tenantId: string,
  workspaceId: string,
  name: string,
  opts: { makeDefault?: boolean; brandColors?: string[]; brandTone?: string | null } = {},
): { theme_id: string; default: boolean } {
  if (!t.workspace(tenantId, workspaceId)) throw new Error(`workspace ${workspaceId} does not belong to tenant ${tenantId}`);
  const theme_id = randomUUID();
  let isDefault = false;
  t.transaction(() => {
    isDefault = opts.makeDefault === true || t.themesOfWorkspace(tenantId, workspaceId).length === 0;
    if (isDefault) t.clearDefaultTheme(tenantId, workspaceId);
    t.insertTheme({
      id: theme_id,
      tenant_id: tenantId,
      workspace_id: workspaceId,
      name,
      brand_colors: opts.brandColors ?? [],
      brand_tone: opts.brandTone ?? null,
      is_default: isDefault ? 1 : 0,
      created_at: new Date().toISOString(),
    });
  });
  return { theme_id, default: isDefault };
}

/** Add an (active) store to a workspace. @throws Error when the workspace is not the tenant's */
export function createStore(
  t: TenancyQueries,
  tenantId: string,
  workspaceId: string,
  name: string,
  opts: { shopDomain?: string | null } = {},
): { store_id: string } {
  if (!t.workspace(tenantId, workspaceId)) throw new Error(`workspace ${workspaceId} does not belong to tenant ${tenantId}`);
  const store_id = randomUUID();
  t.insertStore({
    id: store_id,
    tenant_id: tenantId,
    workspace_id: workspaceId,
    name,
    platform: 'shopify',
    shop_domain: opts.shopDomain ?? null,
    created_at: new Date().toISOString(),
  });
  return { store_id };
}

/**
 * Revoke an API key. Every request authenticates its key again (HTTP per request, stdio and in-process
 * per tool call), so open sessions of the key are refused from the next request on.
 * @returns false when the key is unknown, of another tenant or already revoked
 */
export function revokeApiKey(t: TenancyQueries, tenantId: string, keyId: string): boolean {
  return t.revokeKey(tenantId, keyId, new Date().toISOString());
}

/** Authenticate an API key. @returns the principal, or null for an unknown or revoked key */
export function authenticate(t: TenancyQueries, key: string): Principal | null {
  const row = t.keyByHash(hashKey(key));
  return row ? { tenantId: row.tenant_id, apiKeyId: row.id } : null;
}
