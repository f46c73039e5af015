import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';
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
  return hash('sha256', key, 'hex');
}

/** A new API key: `atl_` + 32 random bytes base64url (256 bits). */
export function newApiKey(): string {
  return `atl_${randomBytes(32).toString('base64url')}`;
}

/**
 * Create a workspace with its default theme and store, granting every live key of the tenant access.
 * @returns the new workspace, theme and store ids
 */
export async function createWorkspace(
  t: TenancyStore,
  tenantId: string,
  name: string,
  opts: { brandColors?: string[]; grantKeys?: boolean } = {},
): Promise<{ workspace_id: string; theme_id: string; store_id: string }> {
  const at = new Date().toISOString();
  const workspace_id = randomUUID();
  const theme_id = randomUUID();
  const store_id = randomUUID();
  await t.createWorkspace(
    { id: workspace_id, tenant_id: tenantId, name, created_at: at },
    {
      id: theme_id,
      tenant_id: tenantId,
      workspace_id,
      name: `${name} theme`,
      brand_colors: opts.brandColors ?? [],
      brand_tone: null,
      created_at: at,
    },
    {
      id: store_id,
      tenant_id: tenantId,
      workspace_id,
      name: `${name} store`,
      platform: 'shopify',
      shop_domain: null,
      created_at: at,
    },
    opts.grantKeys !== false,
  );
  return { workspace_id, theme_id, store_id };
}

/**
 * Create an API key for a tenant reaching the given workspaces (default: all of the tenant's).
 * @throws Error when a workspace id is not the tenant's
 * @returns the key (shown once) and its id
 */
export async function createApiKey(
  t: TenancyStore,
  tenantId: string,
  opts: { name?: string; workspaceIds?: string[] } = {},
): Promise<{ api_key: string; api_key_id: string }> {
  const own = await t.workspacesOfTenant(tenantId);
  const ids = opts.workspaceIds && opts.workspaceIds.length > 0 ? opts.workspaceIds : own.map((w) => w.id);
  for (const id of ids) if (!own.some((w) => w.id === id)) throw new Error(`workspace ${id} does not belong to tenant ${tenantId}`);
  const api_key = newApiKey();
  const api_key_id = randomUUID();
  await t.insertKey(
    {
      id: api_key_id,
      tenant_id: tenantId,
      name: opts.name ?? 'default',
      prefix: api_key.slice(0, 10),
      key_hash: hashKey(api_key),
      created_at: new Date().toISOString(),
    },
    ids,
  );
  return { api_key, api_key_id };
}

/** Create a tenant with one active workspace, theme, store and API key. */
export async function createTenant(t: TenancyStore, name: string, opts: { brandColors?: string[] } = {}): Promise<TenantBundle> {
  const tenant_id = randomUUID();
  await t.insertTenant(tenant_id, name, new Date().toISOString());
  const ws = await createWorkspace(t, tenant_id, name, { ...opts, grantKeys: false });
  const key = await createApiKey(t, tenant_id, { name: 'default' });
  return { tenant_id, ...ws, api_key: key.api_key };
}

/**
 * Add a theme to a workspace. The first theme of a workspace, or one created with `makeDefault`, becomes
 * its default (the previous default is cleared in the same transaction).
 * @throws Error when the workspace is not the tenant's
 */
export async function createTheme(
  t: TenancyStore,
  tenantId: string,
  workspaceId: string,
  name: string,
  opts: { makeDefault?: boolean; brandColors?: string[]; brandTone?: string | null } = {},
): Promise<{ theme_id: string; default: boolean }> {
  if (!(await t.workspace(tenantId, workspaceId))) throw new Error(`workspace ${workspaceId} does not belong to tenant ${tenantId}`);
  const theme_id = randomUUID();
  const isDefault = await t.addTheme(
    {
      id: theme_id,
      tenant_id: tenantId,
      workspace_id: workspaceId,
      name,
      brand_colors: opts.brandColors ?? [],
      brand_tone: opts.brandTone ?? null,
      created_at: new Date().toISOString(),
    },
    opts.makeDefault === true,
  );
  return { theme_id, default: isDefault };
}

/** Add an (active) store to a workspace. @throws Error when the workspace is not the tenant's */
export async function createStore(
  t: TenancyStore,
  tenantId: string,
  workspaceId: string,
  name: string,
  opts: { shopDomain?: string | null } = {},
): Promise<{ store_id: string }> {
  if (!(await t.workspace(tenantId, workspaceId))) throw new Error(`workspace ${workspaceId} does not belong to tenant ${tenantId}`);
  const store_id = randomUUID();
  await t.insertStore({
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
export async function revokeApiKey(t: TenancyStore, tenantId: string, keyId: string): Promise<boolean> {
  return t.revokeKey(tenantId, keyId, new Date().toISOString());
}

/** Authenticate an API key. @returns the principal, or null for an unknown or revoked key */
export async function authenticate(t: TenancyStore, key: string): Promise<Principal | null> {
  const row = await t.keyByHash(hashKey(key));
  return row ? { tenantId: row.tenant_id, apiKeyId: row.id } : null;
}

/**
 * The key-like row of an OAuth grant (server/oauth/): an `api_keys` row whose id is the grant id, reaching
 * exactly `workspaceIds`, with a random hash nobody holds (so it never authenticates as a key). Access
 * tokens name it; revoking it (or the grant) refuses them from the next request on, as for a key.
 * @throws Error when a workspace id is not the tenant's or the list is empty
 */
export async function createGrantKey(
  t: TenancyStore,
  tenantId: string,
  grantId: string,
  clientName: string,
  workspaceIds: string[],
): Promise<void> {
  if (workspaceIds.length === 0) throw new Error('a grant reaches at least one workspace');
  const own = await t.workspacesOfTenant(tenantId);
  for (const id of workspaceIds)
    if (!own.some((w) => w.id === id)) throw new Error(`workspace ${id} does not belong to tenant ${tenantId}`);
  await t.insertKey(
    {
      id: grantId,
      tenant_id: tenantId,
      name: `oauth: ${clientName}`.slice(0, 200),
      prefix: 'oauth',
      key_hash: hashKey(randomBytes(32).toString('base64url')),
      created_at: new Date().toISOString(),
    },
    workspaceIds,
  );
}
