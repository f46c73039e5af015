import { noteCallScope } from '../call-context.ts';
import type { ScopeResult } from '../../shared/schemas/scope.ts';
import type { TenancyStore, ThemeRow, WorkspaceRow } from '../db/ports/tenancy-store.ts';
import { resolveStore, resolveWorkspace, type Principal, type Scope } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';

/**
 * The workspaces (any status) a caller reaches, oldest first: its key's grants, or the tenant's workspaces its
 * token lists (`Principal.workspaceIds`). Either way nothing of another tenant.
 */
async function reachableOf(tenancy: TenancyStore, principal: Principal): Promise<WorkspaceRow[]> {
  if (!principal.workspaceIds) return tenancy.reachableWorkspaces(principal.apiKeyId, principal.tenantId);
  const listed = new Set(principal.workspaceIds);
  return (await tenancy.workspacesOfTenant(principal.tenantId)).filter((w) => listed.has(w.id));
}

/**
 * Resolve the workspace scope of a call from the caller's API key and `args.workspace_id`.
 * @throws ServiceError not_found | ambiguous_scope (field args.workspace_id)
 */
export async function scopeFor(tenancy: TenancyStore, principal: Principal, workspaceId: string | undefined): Promise<Scope> {
  const reachable = await reachableOf(tenancy, principal);
  const ws = resolveWorkspace(reachable, workspaceId);
  noteCallScope({ workspaceId: ws.id });
  return { tenantId: principal.tenantId, workspaceId: ws.id };
}

/**
 * The theme named by `theme_id` (or its deprecated alias `brand_kit_id`); it must belong to the
 * resolved workspace — a theme of another workspace or tenant is `not_found`. Asset search and select
 * without a theme are invalid (spec rule 6) even when the workspace has a single theme: the error lists
 * the workspace's themes in `details.candidates` (`{id, name, default}`), so the caller can retry at once.
 * @throws ServiceError invalid_argument (args.theme_id, missing) | not_found (args.theme_id | args.brand_kit_id)
 */
export async function themeFor(
  tenancy: TenancyStore,
  scope: Scope,
  args: { theme_id?: string | undefined; brand_kit_id?: string | undefined },
): Promise<ThemeRow> {
  const id = args.theme_id ?? args.brand_kit_id;
  const field = args.theme_id ? 'args.theme_id' : 'args.brand_kit_id';
  const candidates = async (): Promise<{ id: string; name: string; default: boolean }[]> =>
    (await tenancy.themesOfWorkspace(scope.tenantId, scope.workspaceId)).map((t) => ({
      id: t.id,
      name: t.name,
      default: t.is_default,
    }));
  const listed = (c: { id: string; name: string; default: boolean }[]): string =>
    c.map((t) => `${t.id} "${t.name}"${t.default ? ' (default)' : ''}`).join(', ');
  if (!id) {
    const c = await candidates();
    throw new ServiceError(
      'invalid_argument',
      'args.theme_id',
      `is required${c.length ? `; this workspace's themes: ${listed(c)}` : ' (this workspace has no theme)'}`,
      { details: { candidates: c } },
    );
  }
  const theme = await tenancy.theme(scope.tenantId, scope.workspaceId, id.toLowerCase());
  if (!theme) {
    const c = await candidates();
    throw new ServiceError(
      'not_found',
      field,
      `theme ${id} does not exist in workspace ${scope.workspaceId}${c.length ? `; its themes: ${listed(c)}` : ''}`,
      { details: { candidates: c } },
    );
  }
  return theme;
}

/**
 * Everything an API key reaches (`svc_discover scope`): its workspaces (active and archived) with their
 * themes and stores, and the ids used when a call leaves them out: the only active workspace, the only
 * active store of that workspace, and that workspace's default theme (to pass as theme_id).
 */
export async function describeScope(tenancy: TenancyStore, principal: Principal): Promise<Omit<ScopeResult, 'storage'>> {
  const reachable = await reachableOf(tenancy, principal);
  const workspaces = await Promise.all(
    reachable.map(async (w) => ({
      id: w.id,
      name: w.name,
      status: w.status,
      themes: (await tenancy.themesOfWorkspace(principal.tenantId, w.id)).map((t) => ({
        id: t.id,
        name: t.name,
        default: t.is_default,
      })),
      stores: (await tenancy.storesOfWorkspace(principal.tenantId, w.id)).map((st) => ({
        id: st.id,
        name: st.name,
        status: st.status,
        catalog_synced_at: st.catalog_synced_at,
      })),
    })),
  );
  const active = workspaces.filter((w) => w.status === 'active');
  const ws = active.length === 1 ? active[0]! : null;
  const stores = ws?.stores.filter((st) => st.status === 'active') ?? [];
  const theme = ws ? (ws.themes.find((t) => t.default) ?? (ws.themes.length === 1 ? ws.themes[0]! : null)) : null;
  return {
    workspaces,
    defaults: { workspace_id: ws?.id ?? null, store_id: stores.length === 1 ? stores[0]!.id : null, theme_id: theme?.id ?? null },
  };
}

/**
 * Resolve workspace then store (rule 8): `store_id` may be omitted only when the workspace has
 * exactly one active store.
 * @throws ServiceError not_found | ambiguous_scope (args.workspace_id | args.store_id)
 */
export async function storeScopeFor(
  tenancy: TenancyStore,
  principal: Principal,
  args: { workspace_id?: string | undefined; store_id?: string | undefined },
): Promise<Scope & { storeId: string }> {
  const scope = await scopeFor(tenancy, principal, args.workspace_id);
  const store = resolveStore(await tenancy.storesOfWorkspace(scope.tenantId, scope.workspaceId), args.store_id);
  noteCallScope({ workspaceId: scope.workspaceId, storeId: store.id });
  return { ...scope, storeId: store.id };
}
