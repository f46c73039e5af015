import type { App } from './app.ts';
import type { Principal } from './domain/scope.ts';
import { ServiceError } from './errors.ts';
import { ensureDemoTenant } from './seed.ts';
import { createApiKey, revokeApiKey } from './tenancy/admin.ts';

/** Setting holding the id of the key a keyless stdio server acts with, per tenant (`stdio_local_key:<tenant id>`). */
const LOCAL_KEY_SETTING = 'stdio_local_key:';
/** Settings: when a keyless stdio server created the demo tenant, and when its photos were all in. */
const SEED_SETTING = 'stdio_demo_seed_started';
const SEED_DONE_SETTING = 'stdio_demo_seed_done';

/** What `serve --stdio` without ATELIER_API_KEY acts as. */
export interface LocalPrincipal {
  principal: Principal;
  /**
   * The demo photos are still to import: the data dir had no tenant and the demo tenant was just created, or a
   * keyless server seeded it before and stopped before the end (`markSeeded` was never called).
   */
  fresh: boolean;
  /** Record that the demo library of this data dir is complete (a later start does not seed again). */
  markSeeded: () => Promise<void>;
  /** Whether the key is still live (not revoked with `atelier keys revoke`); checked before every call. */
  live: () => Promise<boolean>;
}

/**
 * The principal of a stdio server started without ATELIER_API_KEY (the desktop bundle, a local single user):
 * the data dir's only tenant, acting with a key of its own that reaches all the tenant's workspaces. Whoever can
 * start this process can read the data dir's files anyway, so a key to paste would protect nothing here; with
 * several tenants the process cannot guess which one is meant and asks for a key. A data dir with no tenant gets
 * the demo tenant, as `atelier start` does (its photos are imported by the caller, in the background). The key is
 * created once (only its id is kept, in the settings; the secret is never stored or shown) and can be revoked
 * like any other, which stops keyless stdio on that data dir.
 * @throws Error when the data dir holds several tenants, or when its local key has been revoked
 */
export async function localStdioPrincipal(app: App): Promise<LocalPrincipal> {
  const t = app.library.tenancy;
  const tenants = [...new Set((await t.operator.activeWorkspaces()).map((w) => w.tenant_id))];
  if (tenants.length > 1)
    throw new Error(
      `this data directory holds ${tenants.length} tenants: set ATELIER_API_KEY to a key of the one to serve (atelier keys create --tenant <id> --json)`,
    );
  let created = false;
  let tenantId = tenants[0];
  if (tenantId === undefined) {
    tenantId = (await ensureDemoTenant(app)).bundle.tenant_id;
    created = true;
  }
  // The settings table only inserts (first writer wins), so "started" and "done" are two rows.
  if (created) await t.ensureSetting(SEED_SETTING, new Date().toISOString());
  const fresh = (await t.getSetting(SEED_SETTING)) !== undefined && (await t.getSetting(SEED_DONE_SETTING)) === undefined;
  const setting = `${LOCAL_KEY_SETTING}${tenantId}`;
  let keyId = await t.getSetting(setting);
  if (keyId === undefined) {
    const made = await createApiKey(t, tenantId, { name: 'local stdio' });
    // first writer wins when several stdio servers start on a new data dir at once; the others revoke theirs
    keyId = await t.ensureSetting(setting, made.api_key_id);
    if (keyId !== made.api_key_id) await revokeApiKey(t, tenantId, made.api_key_id);
  }
  const id = keyId;
  const owner = tenantId;
  const live = async (): Promise<boolean> => (await t.keysOfTenant(owner)).some((k) => k.id === id);
  if (!(await live())) throw new Error('the local key of this data directory has been revoked: set ATELIER_API_KEY to serve it over stdio');
  const markSeeded = async (): Promise<void> => {
    await t.ensureSetting(SEED_DONE_SETTING, new Date().toISOString());
  };
  return { principal: { tenantId: owner, apiKeyId: id }, fresh, live, markSeeded };
}

/** `resolvePrincipal` of a keyless stdio server: the local principal while its key is live. @throws ServiceError unauthenticated once revoked */
export function localResolver(local: LocalPrincipal): () => Promise<Principal> {
  return async () => {
    if (!(await local.live())) throw new ServiceError('unauthenticated', null, 'the local key of this data directory has been revoked');
    return local.principal;
  };
}
