import { noteCallScope } from '../call-context.ts';
import type { TenancyQueries, ThemeRow } from '../db/tenancy.ts';
import { resolveStore, resolveWorkspace, type Principal, type Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';

/**
 * Resolve the workspace scope of a call from the caller's API key and `args.workspace_id`.
 * @throws ServiceError not_found | ambiguous_scope (field args.workspace_id)
 */
export function scopeFor(tenancy: TenancyQueries, principal: Principal, workspaceId: string | undefined): Scope {
  const reachable = tenancy.reachableWorkspaces(principal.apiKeyId, principal.tenantId);
  const ws = resolveWorkspace(reachable, workspaceId);
  noteCallScope({ workspaceId: ws.id });
  return { tenantId: principal.tenantId, workspaceId: ws.id };
}

/**
 * The theme named by `theme_id` (or its deprecated alias `brand_kit_id`); it must belong to the
 * resolved workspace — a theme of another workspace or tenant is `not_found`.
 * @throws ServiceError not_found (args.theme_id | args.brand_kit_id)
 */
export function themeFor(tenancy: TenancyQueries, scope: Scope, args: { theme_id?: string | undefined; brand_kit_id?: string | undefined }): ThemeRow {
  const id = args.theme_id ?? args.brand_kit_id;
  const field = args.theme_id ? 'args.theme_id' : 'args.brand_kit_id';
  if (!id) throw new ServiceError('invalid_argument', 'args.theme_id', 'is required (or its deprecated alias brand_kit_id)');
  const theme = tenancy.theme(scope.tenantId, scope.workspaceId, id.toLowerCase());
  if (!theme) throw new ServiceError('not_found', field, `theme ${id} does not exist in workspace ${scope.workspaceId}`);
  return theme;
}

/**
 * Resolve workspace then store (rule 8): `store_id` may be omitted only when the workspace has
 * exactly one active store.
 * @throws ServiceError not_found | ambiguous_scope (args.workspace_id | args.store_id)
 */
export function storeScopeFor(tenancy: TenancyQueries, principal: Principal, args: { workspace_id?: string | undefined; store_id?: string | undefined }): Scope & { storeId: string } {
  const scope = scopeFor(tenancy, principal, args.workspace_id);
  const store = resolveStore(tenancy.storesOfWorkspace(scope.tenantId, scope.workspaceId), args.store_id);
  noteCallScope({ workspaceId: scope.workspaceId, storeId: store.id });
  return { ...scope, storeId: store.id };
}
