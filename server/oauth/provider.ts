import type { JWK } from 'jose';
import Provider, { errors, type Configuration, type ErrorOut, type KoaContextWithOIDC } from 'oidc-provider';
import type { OAuthStore } from '../db/ports/oauth-store.ts';
import { adapterFactory } from './adapter.ts';

/** The one scope an Atelier access token carries: use the MCP endpoint (what the grant's workspaces allow). */
export const MCP_SCOPE = 'mcp';

export interface ProviderOptions {
  /** issuer URL, e.g. `https://atelier.example.com/oauth` (where the provider is mounted) */
  issuer: string;
  /** this server's resource identifier (RFC 8707), e.g. `https://atelier.example.com/mcp`: the tokens' audience */
  resource: string;
  store: OAuthStore;
  /** private signing JWKs, the signing one first (server/oauth/keys.ts) */
  jwks: JWK[];
  cookieKeys: string[];
  /** access-token lifetime, seconds */
  accessTokenTtlS: number;
  /** refresh-token (and grant) lifetime, seconds */
  refreshTokenTtlS: number;
  /** called (and awaited) when a grant is revoked or destroyed: revoke its key-like row */
  onGrantDestroyed(grantId: string): Promise<void>;
  /** trust X-Forwarded-Proto/Host (behind a TLS-terminating proxy, ATELIER_PUBLIC_URL set) */
  proxy: boolean;
  /**
   * the fetch of Client ID Metadata Documents: the URL import's guarded fetch (assets/fetch-url.ts), so
   * ATELIER_ALLOW_PRIVATE_URLS governs both; oidc-provider's own special-use-address guard is the same rule
   */
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
}

/**
 * The built-in OAuth 2.1 authorization server (oidc-provider 9, an OpenID-certified library): the
 * authorization code flow with PKCE (S256 only, required for every client), open dynamic client
 * registration (RFC 7591) and Client ID Metadata Documents (draft-02) for public clients, refresh-token
 * rotation, revocation (RFC 7009; revoking a refresh token revokes its grant), and short-lived ES256 JWT
 * access tokens whose audience is the resource (RFC 8707 resource indicators; RFC 9068 shape).
 * The access token names its grant in `gid`; the grant is also an `api_keys` row (the workspaces the
 * operator chose at consent), which the resource server resolves on every request (server/oauth/resource.ts).
 * Interactions (sign-in, consent) are Atelier's pages at `<issuer>/interaction/<uid>` (server/oauth/interactions.ts).
 * Docs: https://github.com/panva/node-oidc-provider/tree/main/docs
 */
export function createProvider(o: ProviderOptions): Provider {
  const mountPath = new URL(o.issuer).pathname.replace(/\/+$/, '');
  const configuration: Configuration = {
    adapter: adapterFactory(o.store, (grantId) => o.onGrantDestroyed(grantId)),
    fetch: (url, options) => o.fetch(url instanceof Request ? url.url : url, options),
    jwks: { keys: o.jwks },
    cookies: {
      keys: o.cookieKeys,
      // HttpOnly always, SameSite=Lax (a cross-site POST carries no interaction cookie: the CSRF defence of the
      // forms), Secure when the request came over TLS (oidc-provider sets it from ctx.secure)
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access'],
    claims: { openid: ['sub'] },
    findAccount: (_ctx, sub) => Promise.resolve({ accountId: sub, claims: () => Promise.resolve({ sub }) }),
    interactions: { url: (_ctx, interaction) => `${mountPath}/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // a client revokes only its own tokens (a public client cannot prove more than its client_id)
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => Promise.resolve(token.clientId === client.clientId) },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => o.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== o.resource) throw new errors.InvalidTarget('unknown resource: this server is only ' + o.resource);
          return {
            scope: MCP_SCOPE,
            audience: o.resource,
            accessTokenTTL: o.accessTokenTtlS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    extraTokenClaims: (_ctx, token) => Promise.resolve('grantId' in token && token.grantId ? { gid: token.grantId } : undefined),
    // every public client gets a refresh token (hosts keep connectors alive without asking for offline_access), rotated on each use
    issueRefreshToken: (_ctx, client) => Promise.resolve(client.grantTypeAllowed('refresh_token')),
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: o.accessTokenTtlS,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 86_400,
      Grant: o.refreshTokenTtlS,
      RefreshToken: o.refreshTokenTtlS,
    },
    renderError: (ctx: KoaContextWithOIDC, out: ErrorOut) => {
      ctx.type = 'json';
      ctx.body = { error: out.error, error_description: out.error_description };
    },
  };
  const provider = new Provider(o.issuer, configuration);
  provider.proxy = o.proxy;
  return provider;
}
