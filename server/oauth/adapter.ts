import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { OAuthStore } from '../db/ports/oauth-store.ts';

/**
 * The oidc-provider storage adapter over Atelier's database (the `OAuthStore` port), so clients,
 * grants, sessions, interactions, codes and refresh tokens live beside everything else (SQLite or
 * PostgreSQL). One adapter per model name; `expiresIn` is seconds from now. `onGrantDestroyed` runs, and
 * is awaited, when a Grant is destroyed (revocation, code replay): the library awaits the destroy before
 * answering, so the grant's key-like row is revoked before the revocation response leaves.
 * Contract: https://github.com/panva/node-oidc-provider/blob/main/example/my_adapter.js
 */
export function adapterFactory(store: OAuthStore, onGrantDestroyed: (grantId: string) => Promise<void>): (model: string) => Adapter {
  return (model) => {
    const out = (r: Awaited<ReturnType<OAuthStore['find']>>): AdapterPayload | undefined =>
      r ? { ...r.payload, ...(r.consumedAt ? { consumed: Math.floor(r.consumedAt / 1000) } : {}) } : undefined;
    return {
      async upsert(id, payload, expiresIn) {
        await store.upsert(model, id, payload, {
          expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : null,
          ...(payload.grantId ? { grantId: payload.grantId } : {}),
          ...(payload.uid ? { uid: payload.uid } : {}),
          ...(payload.userCode ? { userCode: payload.userCode } : {}),
        });
      },
      find: async (id) => out(await store.find(model, id)),
      findByUid: async (uid) => out(await store.findByUid(model, uid)),
      findByUserCode: async (code) => out(await store.findByUserCode(model, code)),
      consume: (id) => store.consume(model, id),
      async destroy(id) {
        await store.destroy(model, id);
        if (model === 'Grant') await onGrantDestroyed(id);
      },
      revokeByGrantId: (grantId) => store.revokeByGrantId(grantId),
    };
  };
}
