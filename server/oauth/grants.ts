import type { OAuthStore } from '../db/ports/oauth-store.ts';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';

/** One OAuth grant as an operator sees it; times ISO 8601 UTC. */
export interface GrantView {
  grant_id: string;
  /** the client's name as it registered (its `client_name`, else its client id) */
  client: string;
  workspace_ids: string[];
  created_at: string;
  /** null while the grant is live */
  revoked_at: string | null;
}

/** A tenant's OAuth grants, live and revoked, oldest first, with the workspaces each reaches. */
export async function listGrants(tenancy: TenancyStore, tenantId: string): Promise<GrantView[]> {
  const rows = (await tenancy.allKeysOfTenant(tenantId)).filter((k) => k.prefix === 'oauth');
  const out: GrantView[] = [];
  for (const k of rows)
    out.push({
      grant_id: k.id,
      client: k.name.replace(/^oauth: /, ''),
      workspace_ids: await tenancy.grantsOfKey(k.id),
      created_at: k.created_at,
      revoked_at: k.revoked_at,
    });
  return out;
}

/**
 * Revoke one grant: its key-like row (access tokens are refused from the next request) and, on the
 * authorization server's side, the grant with every code and refresh token of it.
 * @param tenantId when given, a grant of another tenant counts as not found
 * @returns `not_found` (no such grant, or not the tenant's), `revoked`, or `already_revoked`
 */
export async function revokeGrant(
  tenancy: TenancyStore,
  oauth: OAuthStore,
  grantId: string,
  tenantId?: string,
): Promise<'not_found' | 'revoked' | 'already_revoked'> {
  const row = await tenancy.operator.keyById(grantId);
  if (!row || row.prefix !== 'oauth' || (tenantId !== undefined && row.tenant_id !== tenantId)) return 'not_found';
  const revoked = await tenancy.revokeKey(row.tenant_id, grantId, new Date().toISOString());
  await oauth.revokeByGrantId(grantId);
  await oauth.destroy('Grant', grantId);
  return revoked ? 'revoked' : 'already_revoked';
}
