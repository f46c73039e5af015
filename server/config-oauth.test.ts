import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const external = { ATELIER_OAUTH_EXTERNAL_ISSUER: 'https://idp.example.com/realms/atelier', ATELIER_OAUTH_TENANT_CLAIM: 'tenant_id' };

describe('ATELIER_OAUTH_EXTERNAL_ISSUER and its claims', () => {
  it('is the built-in server unless set', () => {
    expect(loadConfig({}).oauthExternal).toBeNull();
  });

  it('parses the issuer verbatim (a trailing slash stays), the claims, the audience and the scope', () => {
    expect(
      loadConfig({
        ATELIER_OAUTH_EXTERNAL_ISSUER: 'https://tenant.auth0.example/',
        ATELIER_OAUTH_TENANT_CLAIM: 'https://atelier.example.com/tenant',
        ATELIER_OAUTH_WORKSPACE_CLAIM: 'https://atelier.example.com/workspaces',
        ATELIER_OAUTH_AUDIENCE: 'https://atelier.example.com/mcp',
        ATELIER_OAUTH_REQUIRED_SCOPE: 'mcp',
      }).oauthExternal,
    ).toEqual({
      issuer: 'https://tenant.auth0.example/',
      tenantClaim: 'https://atelier.example.com/tenant',
      workspaceClaim: 'https://atelier.example.com/workspaces',
      audience: 'https://atelier.example.com/mcp',
      requiredScope: 'mcp',
    });
    expect(loadConfig(external).oauthExternal).toMatchObject({ audience: null, workspaceClaim: null, requiredScope: null });
  });

  it('accepts plain http only on loopback', () => {
    expect(loadConfig({ ...external, ATELIER_OAUTH_EXTERNAL_ISSUER: 'http://127.0.0.1:8080/realms/x' }).oauthExternal?.issuer).toBe(
      'http://127.0.0.1:8080/realms/x',
    );
    expect(() => loadConfig({ ...external, ATELIER_OAUTH_EXTERNAL_ISSUER: 'http://idp.example.com' })).toThrow(
      /ATELIER_OAUTH_EXTERNAL_ISSUER: must be https \(plain http only on a loopback host/,
    );
    expect(() => loadConfig({ ...external, ATELIER_OAUTH_EXTERNAL_ISSUER: 'idp.example.com' })).toThrow(
      /ATELIER_OAUTH_EXTERNAL_ISSUER: must be an absolute https URL/,
    );
  });

  it('names every broken rule: the tenant claim is required, settings need the issuer, claim names are checked', () => {
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig(env);
        return [];
      } catch (e) {
        return (e as ConfigError).problems;
      }
    };
    expect(problems({ ATELIER_OAUTH_EXTERNAL_ISSUER: external.ATELIER_OAUTH_EXTERNAL_ISSUER })).toEqual([
      'ATELIER_OAUTH_TENANT_CLAIM: is required with ATELIER_OAUTH_EXTERNAL_ISSUER (the claim naming the tenant id)',
    ]);
    expect(problems({ ATELIER_OAUTH_TENANT_CLAIM: 'tenant_id', ATELIER_OAUTH_REQUIRED_SCOPE: 'mcp' })).toEqual([
      'ATELIER_OAUTH_TENANT_CLAIM: applies only with ATELIER_OAUTH_EXTERNAL_ISSUER (unset: the built-in authorization server)',
      'ATELIER_OAUTH_REQUIRED_SCOPE: applies only with ATELIER_OAUTH_EXTERNAL_ISSUER (unset: the built-in authorization server)',
    ]);
    expect(problems({ ...external, ATELIER_OAUTH: '0' })).toEqual([
      'ATELIER_OAUTH_EXTERNAL_ISSUER: needs ATELIER_OAUTH on (it is 0: no access token is accepted)',
    ]);
    expect(problems({ ...external, ATELIER_OAUTH_TENANT_CLAIM: 'aud' })).toEqual([
      'ATELIER_OAUTH_TENANT_CLAIM: must not be a registered claim (iss, aud, exp, nbf, iat, jti)',
    ]);
    expect(problems({ ...external, ATELIER_OAUTH_WORKSPACE_CLAIM: 'two words', ATELIER_OAUTH_REQUIRED_SCOPE: 'a b' })).toEqual([
      'ATELIER_OAUTH_WORKSPACE_CLAIM: must be a claim name: 1–200 printable ASCII characters, no spaces',
      'ATELIER_OAUTH_REQUIRED_SCOPE: must be one scope token (RFC 6749 §3.3: printable ASCII without spaces, quotes or backslashes)',
    ]);
  });
});
