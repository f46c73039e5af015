import express, { type RequestHandler, type Router } from 'express';
import type Provider from 'oidc-provider';
import type { App } from '../app.ts';
import { guardedFetch } from '../assets/fetch-url.ts';
import type { Logger } from '../log.ts';
import { grantsPageRouter } from './grants-page.ts';
import { OAUTH_PATH } from './paths.ts';
import { interactionsRouter } from './interactions.ts';
import { cookieKeys, publicKeys, signingKeys } from './keys.ts';
import { signInLimits } from './limits.ts';
import { createProvider } from './provider.ts';
import {
  bearerChallenge,
  protectedResourceRouter,
  resourceServer,
  type ChallengeError,
  type ResourceServer,
  type TokenVerdict,
} from './resource.ts';

export interface OAuthMount {
  /** the routes: Protected Resource Metadata, the RFC 8414 alias of the AS metadata, the pages and the provider */
  router: Router;
  /** build the provider for the listener's URL (ATELIER_PUBLIC_URL, else the bound `http://host:port`); routes answer 503 before */
  start(boundUrl: string): Promise<void>;
  /** the principal of an access token, null, or a 403 refusal (see ResourceServer.verify) */
  verify(token: string): Promise<TokenVerdict>;
  /** the WWW-Authenticate challenge of a 401/403 on /mcp, naming the resource metadata (RFC 9728 §5.1) */
  challenge(error: ChallengeError): string;
}

/**
 * The OAuth side of the HTTP listener (issue 37): Atelier as an OAuth 2.1 resource server with its
 * built-in authorization server (oidc-provider) on the same express app. Signing and cookie keys come
 * from the database (generated on first start). Revoking a grant (RFC 7009 on its refresh token, or
 * `atelier grants revoke`) revokes its key-like row, so its access tokens stop working at once.
 */
export function oauthMount(app: App, log: Logger): OAuthMount {
  let provider: Provider | null = null;
  let rs: ResourceServer | null = null;
  let issuer: string | null = null;
  let pageKeys: string[] | null = null;
  const plog = log.child({ mod: 'oauth' });
  const r = express.Router();
  r.use(
    protectedResourceRouter(
      () => rs,
      () => issuer,
    ),
  );
  const ready: RequestHandler = (_req, res, next) => {
    if (!provider) return void res.status(503).json({ error: 'temporarily_unavailable' });
    next();
  };
  // RFC 8414 §3.1: the metadata of issuer <origin>/oauth is at /.well-known/oauth-authorization-server/oauth
  r.get(`/.well-known/oauth-authorization-server${OAUTH_PATH}`, ready, (req, res) => {
    // as if asked at <issuer>/.well-known/openid-configuration: the provider derives its mount path from
    // originalUrl minus url, and so its endpoint URLs
    req.originalUrl = `${OAUTH_PATH}/.well-known/openid-configuration`;
    req.url = '/.well-known/openid-configuration';
    void provider!.callback()(req, res);
  });
  const limits = signInLimits(app.stores);
  // token and registration requests: limited per client address (issue 37 item 7), logged when refused
  const limitTokens: RequestHandler = (req, res, next) => {
    const address = req.socket.remoteAddress ?? 'unknown';
    void limits.tokenRequest(address).then((waitS) => {
      if (waitS === 0) return next();
      plog.warn({ remote: address, path: req.path }, 'oauth token request refused: rate limit');
      res.setHeader('Retry-After', String(waitS));
      res.status(429).json({ error: 'slow_down', error_description: 'too many requests from this address; retry later' });
    }, next);
  };
  r.post([`${OAUTH_PATH}/token`, `${OAUTH_PATH}/reg`], ready, limitTokens);
  r.use(
    OAUTH_PATH,
    ready,
    interactionsRouter(() => provider!, { tenancy: app.library.tenancy, oauth: app.stores.oauth, limits }, plog),
  );
  r.use(
    OAUTH_PATH,
    ready,
    grantsPageRouter(() => pageKeys, { tenancy: app.library.tenancy, oauth: app.stores.oauth, limits }, plog),
  );
  r.use(OAUTH_PATH, ready, (req, res) => void provider!.callback()(req, res));
  return {
    router: r,
    async start(boundUrl) {
      const base = (app.config.env.ATELIER_PUBLIC_URL ?? boundUrl).replace(/\/+$/, '');
      const store = app.stores.oauth;
      const jwks = await signingKeys(store);
      issuer = `${base}${OAUTH_PATH}`;
      rs = resourceServer({ baseUrl: base, issuer, jwks: publicKeys(jwks), tenancy: app.library.tenancy });
      const p = createProvider({
        issuer,
        resource: rs.resource,
        store,
        jwks,
        cookieKeys: (pageKeys = await cookieKeys(store)),
        accessTokenTtlS: app.config.env.ATELIER_OAUTH_ACCESS_TOKEN_TTL_S,
        refreshTokenTtlS: app.config.env.ATELIER_OAUTH_REFRESH_TOKEN_TTL_S,
        proxy: Boolean(app.config.env.ATELIER_PUBLIC_URL),
        fetch: guardedFetch(app.config.env.ATELIER_ALLOW_PRIVATE_URLS),
        onGrantDestroyed: async (grantId) => {
          const row = await app.library.tenancy.operator.keyById(grantId);
          if (row?.prefix === 'oauth' && (await app.library.tenancy.revokeKey(row.tenant_id, grantId, new Date().toISOString())))
            plog.info({ grant_id: grantId, tenant_id: row.tenant_id }, 'oauth grant revoked');
        },
      });
      p.on('server_error', (_ctx: unknown, err: unknown) => plog.error({ err }, 'oauth server error'));
      provider = p;
    },
    verify: (token) => (rs ? rs.verify(token) : Promise.resolve(null)),
    challenge: (error) => bearerChallenge(rs, error),
  };
}
