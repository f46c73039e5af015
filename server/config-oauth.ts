import net from 'node:net';
import { z } from 'zod';
import { bool, int } from './config-fields.ts';

/** Whether a URL's host name reaches only this machine (127.0.0.0/8, ::1, localhost): where plain http is allowed. */
export function isLoopbackUrlHost(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  if (net.isIPv4(hostname)) return hostname.startsWith('127.');
  return hostname === '[::1]' || hostname === '::1';
}

/** https anywhere, http only on loopback (a test IdP on this machine). */
const secureUrl = (u: string): boolean => {
  if (!URL.canParse(u)) return true; // the url() check reports it
  const url = new URL(u);
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackUrlHost(url.hostname));
};

/** A JWT claim name: printable ASCII without spaces (Auth0-style namespaced names like https://atelier.example.com/tenant are fine). */
const claimName = z
  .string()
  .regex(/^[\x21-\x7e]{1,200}$/, 'must be a claim name: 1–200 printable ASCII characters, no spaces')
  .refine((c) => !['iss', 'aud', 'exp', 'nbf', 'iat', 'jti'].includes(c), 'must not be a registered claim (iss, aud, exp, nbf, iat, jti)');

/**
 * The OAuth variables (part of config.ts `EnvSchema`): the built-in authorization server, or an external
 * identity provider whose access tokens `/mcp` accepts instead (server/oauth/external.ts).
 */
export const OAUTH_ENV = {
  ATELIER_OAUTH: bool
    .default(true)
    .describe(
      'accept OAuth access tokens on /mcp beside API keys: of the built-in authorization server (/oauth), or of ATELIER_OAUTH_EXTERNAL_ISSUER when set',
    ),
  ATELIER_OAUTH_ACCESS_TOKEN_TTL_S: int(30, 86_400).default(600).describe('lifetime of an OAuth access token, seconds (built-in server)'),
  ATELIER_OAUTH_REFRESH_TOKEN_TTL_S: int(3600, 31_536_000)
    .default(30 * 86_400)
    .describe('lifetime of an OAuth refresh token and of its grant, seconds (built-in server; each refresh rotates the refresh token)'),
  ATELIER_OAUTH_EXTERNAL_ISSUER: z
    .url({ protocol: /^https?$/, error: 'must be an absolute https URL, the issuer exactly as its tokens name it in iss' })
    .refine(secureUrl, 'must be https (plain http only on a loopback host such as 127.0.0.1, for tests)')
    .optional()
    .describe(
      "issuer URL of an external identity provider (e.g. https://idp.example.com/realms/atelier, https://tenant.auth0.com/): /mcp accepts its access tokens, verified against the keys its discovery document's jwks_uri serves, and the built-in server is off; unset = the built-in server",
    ),
  ATELIER_OAUTH_AUDIENCE: z
    .string()
    .regex(/^\S{1,500}$/, 'must be one audience value without spaces (e.g. https://atelier.example.com/mcp)')
    .optional()
    .describe("the aud an external issuer's tokens must carry; default this server's resource URL <public url>/mcp"),
  ATELIER_OAUTH_TENANT_CLAIM: claimName
    .optional()
    .describe(
      'the claim of an external token whose value is the Atelier tenant id it acts for (required with ATELIER_OAUTH_EXTERNAL_ISSUER)',
    ),
  ATELIER_OAUTH_WORKSPACE_CLAIM: claimName
    .optional()
    .describe(
      'the claim of an external token listing the workspace ids it reaches (array, or space-separated string); unset = every workspace of the tenant, as a new API key',
    ),
  ATELIER_OAUTH_REQUIRED_SCOPE: z
    .string()
    .regex(
      /^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/,
      'must be one scope token (RFC 6749 §3.3: printable ASCII without spaces, quotes or backslashes)',
    )
    .optional()
    .describe('a scope an external token must carry (in scope or scp); unset = none checked'),
};

/** The parsed OAuth variables. */
export type OAuthEnv = z.infer<z.ZodObject<typeof OAUTH_ENV>>;

/** How tokens of an external identity provider are checked (server/oauth/external.ts). */
export interface ExternalIdpConfig {
  /** the issuer exactly as configured (a trailing slash is part of it: `iss` is compared verbatim) */
  issuer: string;
  /** the required `aud`; null = `<public url>/mcp`, known once the listener is bound */
  audience: string | null;
  tenantClaim: string;
  /** null = every workspace of the tenant */
  workspaceClaim: string | null;
  requiredScope: string | null;
}

/** The external IdP `Config.oauthExternal` describes, or null for the built-in server; from variables `oauthProblems` found nothing wrong with. */
export function externalIdpConfig(e: OAuthEnv): ExternalIdpConfig | null {
  if (!e.ATELIER_OAUTH_EXTERNAL_ISSUER || !e.ATELIER_OAUTH_TENANT_CLAIM) return null;
  return {
    issuer: e.ATELIER_OAUTH_EXTERNAL_ISSUER,
    audience: e.ATELIER_OAUTH_AUDIENCE ?? null,
    tenantClaim: e.ATELIER_OAUTH_TENANT_CLAIM,
    workspaceClaim: e.ATELIER_OAUTH_WORKSPACE_CLAIM ?? null,
    requiredScope: e.ATELIER_OAUTH_REQUIRED_SCOPE ?? null,
  };
}

/** Cross-variable rules: the external settings need the issuer (and it needs the tenant claim and OAuth on). */
export function oauthProblems(e: OAuthEnv): string[] {
  const problems: string[] = [];
  if (!e.ATELIER_OAUTH_EXTERNAL_ISSUER) {
    for (const k of [
      'ATELIER_OAUTH_AUDIENCE',
      'ATELIER_OAUTH_TENANT_CLAIM',
      'ATELIER_OAUTH_WORKSPACE_CLAIM',
      'ATELIER_OAUTH_REQUIRED_SCOPE',
    ] as const)
      if (e[k] !== undefined)
        problems.push(`${k}: applies only with ATELIER_OAUTH_EXTERNAL_ISSUER (unset: the built-in authorization server)`);
    return problems;
  }
  if (!e.ATELIER_OAUTH_TENANT_CLAIM)
    problems.push('ATELIER_OAUTH_TENANT_CLAIM: is required with ATELIER_OAUTH_EXTERNAL_ISSUER (the claim naming the tenant id)');
  if (!e.ATELIER_OAUTH) problems.push('ATELIER_OAUTH_EXTERNAL_ISSUER: needs ATELIER_OAUTH on (it is 0: no access token is accepted)');
  return problems;
}
