import express, { type Router } from 'express';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';
import type { Principal } from '../domain/scope.ts';
import { MCP_SCOPE } from './provider.ts';

/**
 * What checking an access token gave: the principal; null when the token is not valid here (HTTP 401
 * `invalid_token`); or `insufficientScope` when it is valid but reaches nothing here (HTTP 403
 * `insufficient_scope`, RFC 6750 §3.1), with the reason for the caller.
 */
export type TokenVerdict = Principal | null | { insufficientScope: string };

export interface ResourceServer {
  /** this server's resource identifier (RFC 8707), `<public url>/mcp` */
  resource: string;
  /** the Protected Resource Metadata URL a 401 names (RFC 9728 §5.1) */
  metadataUrl: string;
  /** the scopes a token needs, published as `scopes_supported` and in the challenge; may be empty */
  scopes: string[];
  /**
   * The principal of a JWT access token, or null when it is not one Atelier issued for this resource:
   * signature (the authorization server's keys), `iss`, `aud` = `resource`, `exp` (no leeway), `typ`
   * `at+jwt` (RFC 9068), the `mcp` scope, and its grant row (`gid`, an `api_keys` row of the tenant `sub`)
   * still live, so a revoked grant is refused on the next request.
   */
  verify(token: string): Promise<TokenVerdict>;
}

/**
 * The OAuth 2.1 resource-server side of `/mcp` (MCP authorization, revision 2025-06-18 and later).
 * @param o.jwks the authorization server's public keys
 * Spec: https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 */
export function resourceServer(o: { baseUrl: string; issuer: string; jwks: JWK[]; tenancy: TenancyStore }): ResourceServer {
  const resource = `${o.baseUrl}/mcp`;
  const keys = createLocalJWKSet({ keys: o.jwks });
  return {
    resource,
    metadataUrl: `${o.baseUrl}/.well-known/oauth-protected-resource/mcp`,
    scopes: [MCP_SCOPE],
    async verify(token) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: o.issuer,
          audience: resource,
          typ: 'at+jwt',
          algorithms: ['ES256'],
          clockTolerance: 0,
          requiredClaims: ['exp', 'sub'],
        }));
      } catch {
        return null;
      }
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
      if (!scopes.includes(MCP_SCOPE) || typeof payload.gid !== 'string') return null;
      const row = await o.tenancy.operator.keyById(payload.gid);
      if (!row || row.revoked_at !== null || row.tenant_id !== payload.sub || row.prefix !== 'oauth') return null;
      return { tenantId: row.tenant_id, apiKeyId: row.id };
    },
  };
}

/**
 * `GET /.well-known/oauth-protected-resource` and its path-suffixed form `…/mcp` (RFC 9728 §3.1): the
 * resource, its authorization server (built-in or external), the scopes and that tokens go in the Authorization header.
 */
export function protectedResourceRouter(get: () => ResourceServer | null, issuer: () => string | null): Router {
  const r = express.Router();
  const send: express.RequestHandler = (_req, res) => {
    const rs = get();
    const iss = issuer();
    if (!rs || !iss) return void res.status(503).json({ error: { code: 'starting', message: 'the server is starting' } });
    res.setHeader('Cache-Control', 'max-age=300');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.json({
      resource: rs.resource,
      authorization_servers: [iss],
      ...(rs.scopes.length ? { scopes_supported: rs.scopes } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'Atelier',
    });
  };
  r.get('/.well-known/oauth-protected-resource', send);
  r.get('/.well-known/oauth-protected-resource/mcp', send);
  return r;
}

/** Why a request to /mcp was refused, as the `error` of its challenge (RFC 6750 §3.1); null when no credential came. */
export type ChallengeError = 'invalid_token' | 'insufficient_scope' | null;

/**
 * The `WWW-Authenticate` value of a 401/403 on /mcp: the resource metadata URL (RFC 9728 §5.1), the scopes
 * a token needs (RFC 6750 §3) and the error, once `rs` is known (before: the realm only).
 */
export function bearerChallenge(rs: ResourceServer | null, error: ChallengeError): string {
  const meta = rs ? `, resource_metadata="${rs.metadataUrl}"${rs.scopes.length ? `, scope="${rs.scopes.join(' ')}"` : ''}` : '';
  return `Bearer realm="atelier"${meta}${error ? `, error="${error}"` : ''}`;
}
