import { ServiceError } from '../errors.ts';

/** Server-derived ownership scope. Never client-controlled: every query takes it first. */
export interface Scope {
  tenantId: string;
  workspaceId: string;
}

/** The caller as authenticated by an API key (or an access token standing for one). */
export interface Principal {
  tenantId: string;
  /** the key (or grant) row; for an external identity provider's token a stable id of its issuer, subject and tenant (no row) */
  apiKeyId: string;
  /**
   * The workspace ids the credential itself reaches, resolved when the request was authenticated (an external
   * identity provider's token: server/oauth/external.ts); absent = the key's grants (`api_keys` workspace rows).
   */
  workspaceIds?: readonly string[];
}

export interface Candidate {
  id: string;
  name: string;
  status: 'active' | 'archived';
}

/**
 * Pick the workspace for a call (spec §1, §5, rule 8): the requested one when it is reachable and
 * active; otherwise the only active reachable one; otherwise `ambiguous_scope` listing candidates.
 * A workspace that is not reachable behaves exactly like one that does not exist.
 * @param reachable workspaces the API key is granted (any status)
 * @param requested `args.workspace_id`, if given
 * @throws ServiceError not_found (args.workspace_id) | ambiguous_scope (args.workspace_id)
 */
export function resolveWorkspace(reachable: Candidate[], requested: string | undefined): Candidate {
  return pickOne(reachable, requested, 'workspace', 'args.workspace_id');
}

/**
 * Pick the store of a workspace (rule 8): same rule as workspaces, over the workspace's stores.
 * @throws ServiceError not_found (args.store_id) | ambiguous_scope (args.store_id)
 */
export function resolveStore(stores: Candidate[], requested: string | undefined): Candidate {
  return pickOne(stores, requested, 'store', 'args.store_id');
}

function pickOne(all: Candidate[], requested: string | undefined, noun: string, field: string): Candidate {
  if (requested !== undefined) {
    const hit = all.find((c) => c.id.toLowerCase() === requested.toLowerCase());
    if (!hit || hit.status !== 'active') {
      const active = all.filter((c) => c.status === 'active');
      const why = hit ? 'is archived' : 'does not exist or is not reachable with this API key';
      throw new ServiceError(
        'not_found',
        field,
        `${noun} ${requested} ${why}${active.length ? `; reachable: ${active.map((c) => `${c.id} "${c.name}"`).join(', ')}` : ''}`,
        {
          details: { candidates: active.map((c) => ({ id: c.id, name: c.name })) },
        },
      );
    }
    return hit;
  }
  const active = all.filter((c) => c.status === 'active');
  if (active.length === 1) return active[0]!;
  if (active.length === 0) throw new ServiceError('not_found', field, `no active ${noun} is reachable with this API key`);
  throw new ServiceError(
    'ambiguous_scope',
    field,
    `${active.length} active ${noun}s are reachable; pass ${field.replace('args.', '')} (one of: ${active.map((c) => `${c.id} "${c.name}"`).join(', ')})`,
    { details: { candidates: active.map((c) => ({ id: c.id, name: c.name })) } },
  );
}
