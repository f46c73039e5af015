import { createRemoteJWKSet } from 'jose';
import type { App } from '../app.ts';
import type { ExternalIdpConfig } from '../config-oauth.ts';
import type { Logger } from '../log.ts';
import { discoverIssuer, externalVerifier } from './external.ts';
import type { OAuthMount } from './mount.ts';
import { bearerChallenge, protectedResourceRouter, type ResourceServer } from './resource.ts';

/**
 * The OAuth side of the HTTP listener with an external identity provider (ATELIER_OAUTH_EXTERNAL_ISSUER)
 * instead of the built-in authorization server: only the Protected Resource Metadata is served (naming the
 * external issuer in `authorization_servers`), the built-in routes are not mounted (404), and `/mcp` accepts
 * the issuer's access tokens (server/oauth/external.ts) beside API keys. `start` fetches the issuer's
 * metadata (retried) to find its `jwks_uri`; before it finished, tokens are refused and the metadata answers 503.
 * @throws Error from `start` when the issuer's metadata cannot be found or is inconsistent (the server does not start)
 */
export function externalOAuthMount(app: App, idp: ExternalIdpConfig, log: Logger): OAuthMount {
  let rs: ResourceServer | null = null;
  const plog = log.child({ mod: 'oauth' });
  return {
    router: protectedResourceRouter(
      () => rs,
      () => (rs ? idp.issuer : null),
    ),
    async start(boundUrl) {
      const base = (app.config.env.ATELIER_PUBLIC_URL ?? boundUrl).replace(/\/+$/, '');
      const resource = `${base}/mcp`;
      const audience = idp.audience ?? resource;
      const meta = await discoverIssuer(idp.issuer, { log: plog });
      // jose caches the set, refetches it when a token names an unknown kid (at most every 30 s) and after 10 min
      const keys = createRemoteJWKSet(new URL(meta.jwks_uri), { timeoutDuration: 5000 });
      rs = {
        resource,
        metadataUrl: `${base}/.well-known/oauth-protected-resource/mcp`,
        scopes: idp.requiredScope ? [idp.requiredScope] : [],
        verify: externalVerifier({ idp, audience, keys, tenancy: app.library.tenancy, log: plog }),
      };
      plog.info({ issuer: idp.issuer, jwks_uri: meta.jwks_uri, audience }, 'external identity provider ready');
    },
    verify: (token) => (rs ? rs.verify(token) : Promise.resolve(null)),
    challenge: (error) => bearerChallenge(rs, error),
  };
}
