export interface WorkspaceRow {
  id: string;
  tenant_id: string;
  name: string;
  status: 'active' | 'archived';
  created_at: string;
}

/** A theme (brand kit) of a workspace. */
export interface ThemeRow {
  id: string;
  tenant_id: string;
  workspace_id: string;
  name: string;
  /** hex colours (e.g. `#1f3a5f`), in the order given */
  brand_colors: string[];
  brand_tone: string | null;
  /** whether it is the workspace's default theme (at most one is) */
  is_default: boolean;
  created_at: string;
}

export interface StoreRow {
  id: string;
  tenant_id: string;
  workspace_id: string;
  name: string;
  platform: string;
  shop_domain: string | null;
  status: 'active' | 'archived';
  catalog_synced_at: string | null;
  created_at: string;
}

export interface ApiKeyRow {
  id: string;
  tenant_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: string;
  revoked_at: string | null;
}

/** One tenant; `created_at` ISO 8601 UTC with ms. */
export interface TenantRow {
  id: string;
  name: string;
  created_at: string;
}

/** A workspace to create (status starts `active`). */
export type NewWorkspace = Omit<WorkspaceRow, 'status'>;
/** A theme to add. Whether it becomes the default is the store's decision. */
export type NewTheme = Omit<ThemeRow, 'is_default'>;
/** A store to add (status starts `active`, `catalog_synced_at` null). */
export type NewStore = Omit<StoreRow, 'status' | 'catalog_synced_at'>;
/** An API key to add: only the sha256 hex of the key is stored. */
export type NewApiKey = Omit<ApiKeyRow, 'revoked_at'>;

/**
 * Port: tenants, workspaces, themes (brand kits), stores, API keys with their workspace grants, and the
 * `settings` key/value table. Multi-row writes that must hold together are single methods here
 * (`createWorkspace`, `addTheme`, `setDefaultTheme`, `insertKey`), each atomic on its backend, because
 * an async port cannot hand a caller an open transaction. Lookups that take a tenant (and workspace)
 * return nothing of another tenant. Rows are plain shapes, the same on every backend: times (`created_at`,
 * `revoked_at`, `catalog_synced_at`) ISO 8601 UTC with ms as the caller passed them, `brand_colors` an
 * array, `is_default` a boolean; each adapter parses its own columns.
 * Implementations: SQLite (server/db/sqlite/tenancy.ts) and PostgreSQL (server/db/postgres/tenancy.ts);
 * both pass server/db/contract/tenancy-store-contract.ts.
 */
export interface TenancyStore {
  /** The value of a setting, or undefined. */
  getSetting(key: string): Promise<string | undefined>;
  /** Insert a setting if absent (first writer wins, also across processes). @returns the stored value */
  ensureSetting(key: string, value: string): Promise<string>;

  /** @throws the driver's unique-violation error when `id` exists */
  insertTenant(id: string, name: string, at: string): Promise<void>;
  tenant(id: string): Promise<TenantRow | undefined>;
  /** The oldest tenant with this name. */
  tenantByName(name: string): Promise<TenantRow | undefined>;
  /**
   * The tenant's own storage quota (`tenants.quota_bytes`), bytes, 0 = unlimited; null when it takes the
   * server's default (ATELIER_TENANT_QUOTA_BYTES); undefined when the tenant does not exist.
   */
  tenantQuota(id: string): Promise<number | null | undefined>;
  /** Set the tenant's own storage quota (bytes ≥ 0, 0 = unlimited) or, with null, return it to the default. @returns false when the tenant does not exist */
  setTenantQuota(id: string, bytes: number | null): Promise<boolean>;

  /**
   * Create an active workspace with its default theme and its store, in one transaction; with
   * `grantLiveKeys` every unrevoked key of the tenant is granted the new workspace.
   * @throws the driver's foreign-key error when the tenant does not exist (nothing is written)
   */
  createWorkspace(w: NewWorkspace, theme: NewTheme, store: NewStore, grantLiveKeys: boolean): Promise<void>;
  workspace(tenantId: string, id: string): Promise<WorkspaceRow | undefined>;
  /** Workspaces of a tenant (any status), oldest first (created_at, id). */
  workspacesOfTenant(tenantId: string): Promise<WorkspaceRow[]>;
  /** @returns false when the workspace is not the tenant's */
  setWorkspaceStatus(tenantId: string, id: string, status: 'active' | 'archived'): Promise<boolean>;
  /** Workspaces (any status) an API key is granted, within its tenant, oldest first. */
  reachableWorkspaces(keyId: string, tenantId: string): Promise<WorkspaceRow[]>;

  /**
   * Add a theme, in one transaction: it becomes the workspace's default when `makeDefault` or when the
   * workspace has no theme yet (the previous default is cleared; one default per workspace).
   * @returns whether it became the default
   */
  addTheme(t: NewTheme, makeDefault: boolean): Promise<boolean>;
  /** Make an existing theme the workspace's only default, atomically. @returns false when it is not the workspace's (nothing changes) */
  setDefaultTheme(tenantId: string, workspaceId: string, themeId: string): Promise<boolean>;
  theme(tenantId: string, workspaceId: string, id: string): Promise<ThemeRow | undefined>;
  /** Themes of a workspace, the default first, then oldest first (created_at, id). */
  themesOfWorkspace(tenantId: string, workspaceId: string): Promise<ThemeRow[]>;

  insertStore(st: NewStore): Promise<void>;
  /** Stores of a workspace, oldest first (created_at, id). */
  storesOfWorkspace(tenantId: string, workspaceId: string): Promise<StoreRow[]>;
  /** Unscoped lookup for operator commands (CLI). Never call from an action. */
  storeById(id: string): Promise<StoreRow | undefined>;

  /** Insert a key and its grants in one transaction. @throws the driver's unique-violation error on a duplicate id or hash */
  insertKey(k: NewApiKey, workspaceIds: string[]): Promise<void>;
  /** The live (unrevoked) key with this sha256 hex hash. */
  keyByHash(hash: string): Promise<ApiKeyRow | undefined>;
  /** Live keys of a tenant. */
  keysOfTenant(tenantId: string): Promise<ApiKeyRow[]>;
  /** Every key of a tenant, revoked ones included, oldest first (operator listing). */
  allKeysOfTenant(tenantId: string): Promise<ApiKeyRow[]>;
  /** Revoke a live key. @returns false when unknown, of another tenant or already revoked */
  revokeKey(tenantId: string, id: string, at: string): Promise<boolean>;
  /** Workspace ids granted to a key, sorted. */
  grantsOfKey(keyId: string): Promise<string[]>;
  /** Grant a key a workspace (idempotent). */
  grant(keyId: string, workspaceId: string): Promise<void>;

  /** Operator lookups across tenants (CLI). Never reachable from an MCP action. */
  operator: {
    workspaceById(id: string): Promise<WorkspaceRow | undefined>;
    /** Active workspaces of every tenant, oldest first. */
    activeWorkspaces(): Promise<WorkspaceRow[]>;
    keyById(id: string): Promise<ApiKeyRow | undefined>;
  };
}
