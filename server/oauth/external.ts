import { hash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { isLoopbackUrlHost, type ExternalIdpConfig } from '../config-oauth.ts';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';
import type { Logger } from '../log.ts';
import type { TokenVerdict } from './resource.ts';

/**
 * Signature algorithms an external access token may use: asymmetric only, so the verification keys are
 * public (an HMAC token would need a secret shared with the IdP, and accepting `HS*` against a public key
 * is the classic algorithm-confusion forgery). RFC 7518 §3.1, RFC 8037.
 */
export const EXTERNAL_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Leeway on `exp`/`nbf`/`iat` for clocks of the IdP and this server that disagree a little, seconds. */
export const CLOCK_TOLERANCE_S = 5;

/** The part of an RFC 8414 / OpenID Connect Discovery 1.0 document this resource server uses. */
const MetadataSchema = z.object({ issuer: z.string(), jwks_uri: z.url() });
export type IssuerMetadata = z.infer<typeof MetadataSchema>;

/**
 * Where an issuer's metadata may be, in the order MCP clients try them: RFC 8414 §3.1 (well-known inserted
 * before the issuer's path), OpenID Connect Discovery 1.0 §4 (appended: Keycloak, Auth0, Okta), and the
 * inserted OIDC form.
 */
export function discoveryUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const p = u.pathname.replace(/\/+$/, '');
  return [
    ...new Set([
      `${u.origin}/.well-known/oauth-authorization-server${p}`,
      `${u.origin}${p}/.well-known/openid-configuration`,
      `${u.origin}/.well-known/openid-configuration${p}`,
    ]),
  ];
}

/**
 * Fetch the issuer's metadata (`discoveryUrls`, first answer 200 wins), retrying network failures and
 * non-200 answers with doubling waits: the IdP may be starting beside this server.
 * @param o.attempts rounds over all the URLs; o.firstWaitMs the wait after the first, ms; o.timeoutMs per request, ms
 * @throws Error naming the issuer when no round found a document, when the document names another issuer
 *   (RFC 8414 §3.3: it must be identical; not retried), or when its jwks_uri is not https (http only on loopback)
 */
export async function discoverIssuer(
  issuer: string,
  o: { log: Logger; attempts?: number; firstWaitMs?: number; timeoutMs?: number },
): Promise<IssuerMetadata> {
  const attempts = o.attempts ?? 6;
  let last = '';
  for (let round = 0; round < attempts; round++) {
    if (round > 0) await sleep((o.firstWaitMs ?? 250) * 2 ** (round - 1));
    for (const url of discoveryUrls(issuer)) {
      let res: Response;
      try {
        res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(o.timeoutMs ?? 5000) });
      } catch (e) {
        last = `${url}: ${(e as Error).message}`;
        continue;
      }
      if (res.status !== 200) {
        last = `${url}: HTTP ${res.status}`;
        await res.body?.cancel();
        continue;
      }
      const meta = MetadataSchema.safeParse(await res.json().catch(() => null));
      if (!meta.success) {
        last = `${url}: not a metadata document with issuer and jwks_uri`;
        continue;
      }
      if (meta.data.issuer !== issuer)
        throw new Error(
          `ATELIER_OAUTH_EXTERNAL_ISSUER=${issuer}: ${url} names the issuer ${meta.data.issuer}; they must be identical (RFC 8414 §3.3)`,
        );
      const jwks = new URL(meta.data.jwks_uri);
      if (jwks.protocol !== 'https:' && !(jwks.protocol === 'http:' && isLoopbackUrlHost(jwks.hostname)))
        throw new Error(`ATELIER_OAUTH_EXTERNAL_ISSUER=${issuer}: jwks_uri ${meta.data.jwks_uri} must be https`);
      return meta.data;
    }
    o.log.warn({ issuer, attempt: round + 1, last }, 'external issuer metadata not found yet');
  }
  throw new Error(`ATELIER_OAUTH_EXTERNAL_ISSUER=${issuer}: no metadata document after ${attempts} attempts (last: ${last})`);
}

/** What a verified token's claims say, before the database is asked: who, for which tenant, which workspaces, with which scopes. */
export type TokenClaims =
  { ok: true; subject: string; tenantId: string; workspaceIds: string[] | null; scopes: string[] } | { ok: false; reason: string };

/**
 * Read the claims Atelier needs from a verified payload (pure; `externalVerifier` runs it after jwtVerify).
 * The tenant claim must be a non-empty string (the tenant id); the workspace claim, when configured, an array
 * of ids or a space-separated string of them (ids compared case-insensitively, so lowercased here); scopes
 * come from `scope` (RFC 9068 §2.2.3, space-separated) or `scp` (array or string: Okta, Entra ID).
 */
export function readClaims(payload: JWTPayload, c: Pick<ExternalIdpConfig, 'tenantClaim' | 'workspaceClaim'>): TokenClaims {
  const tenant = payload[c.tenantClaim];
  if (typeof tenant !== 'string' || !tenant) return { ok: false, reason: `claim ${c.tenantClaim} is not a tenant id` };
  let workspaceIds: string[] | null = null;
  if (c.workspaceClaim) {
    const ws = payload[c.workspaceClaim];
    const list: unknown[] | null = typeof ws === 'string' ? ws.split(/\s+/) : Array.isArray(ws) ? ws : null;
    if (!list || !list.every((w): w is string => typeof w === 'string'))
      return { ok: false, reason: `claim ${c.workspaceClaim} is not a list of workspace ids` };
    workspaceIds = list.filter(Boolean).map((w) => w.toLowerCase());
  }
  const words = (v: unknown): string[] =>
    typeof v === 'string' ? v.split(/\s+/).filter(Boolean) : Array.isArray(v) ? v.filter((s) => typeof s === 'string') : [];
  return { ok: true, subject: payload.sub!, tenantId: tenant, workspaceIds, scopes: [...words(payload.scope), ...words(payload.scp)] };
}

/**
 * The verifier of an external identity provider's access tokens: signature by a key of `keys` (jose's remote
 * JWKS set: cached, refetched on an unknown `kid`), `iss` = the issuer, `aud` containing the audience, `exp`
 * required and `nbf` honoured with `CLOCK_TOLERANCE_S`, an algorithm of `EXTERNAL_ALGORITHMS`; then the
 * tenant claim must name an existing tenant (else null → 401 invalid_token), the required scope be present
 * and the token reach at least one of the tenant's workspaces (else 403 insufficient_scope). The principal's
 * `apiKeyId` is a stable hash of issuer, subject and tenant (its sessions and rate limits), its
 * `workspaceIds` the tenant's workspaces the token lists (all of them without a workspace claim).
 * Failures are logged with the jose error code and claim, never the token.
 * Spec: RFC 7519, RFC 9068 (JWT access tokens), https://modelcontextprotocol.io/specification/2025-06-18/basic/authorization
 */
export function externalVerifier(o: {
  idp: ExternalIdpConfig;
  audience: string;
  keys: JWTVerifyGetKey;
  tenancy: TenancyStore;
  log: Logger;
}): (token: string) => Promise<TokenVerdict> {
  const refuse = (reason: string, extra: Record<string, unknown> = {}): null => {
    o.log.warn({ reason, ...extra }, 'external access token refused');
    return null;
  };
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, o.keys, {
        issuer: o.idp.issuer,
        audience: o.audience,
        algorithms: EXTERNAL_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (e) {
      if (!(e instanceof errors.JOSEError)) throw e;
      return refuse(e.code, e instanceof errors.JWTClaimValidationFailed ? { claim: e.claim } : {});
    }
    const claims = readClaims(payload, o.idp);
    if (!claims.ok) return refuse('claims', { detail: claims.reason });
    if (!(await o.tenancy.tenant(claims.tenantId))) return refuse('unknown_tenant', { tenant_id: claims.tenantId });
    if (o.idp.requiredScope && !claims.scopes.includes(o.idp.requiredScope))
      return { insufficientScope: `the access token lacks the scope ${o.idp.requiredScope}` };
    const own = await o.tenancy.workspacesOfTenant(claims.tenantId);
    const listed = claims.workspaceIds && new Set(claims.workspaceIds);
    const workspaceIds = own.filter((w) => !listed || listed.has(w.id.toLowerCase())).map((w) => w.id);
    if (workspaceIds.length === 0) return { insufficientScope: `the access token reaches no workspace of tenant ${claims.tenantId}` };
    const apiKeyId = `ext_${hash('sha256', `${o.idp.issuer}\n${claims.subject}\n${claims.tenantId}`, 'hex').slice(0, 32)}`;
    return { tenantId: claims.tenantId, apiKeyId, workspaceIds };
  };
}
