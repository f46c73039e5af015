import type { OAuthStore } from '../db/ports/oauth-store.ts';
import type { TenancyStore } from '../db/ports/tenancy-store.ts';
import type { Logger } from '../log.ts';
import { authenticate } from '../tenancy/admin.ts';
import type { SignInLimits } from './limits.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

/** What an operator posted on a sign-in form: an operator account (`name` + `password`) or an API key. */
export interface SignInForm {
  name?: unknown;
  password?: unknown;
  api_key?: unknown;
}

/** The outcome of one sign-in: the tenant signed in, or the HTTP status and the message the form shows. */
export type SignInResult = { tenantId: string } | { status: 401 | 429; message: string };

export interface OperatorSignIn {
  /**
   * Check one sign-in under the brute-force limits of limits.ts: 429 while the account or address is locked,
   * 401 for a wrong password, unknown name or unknown key (each counted). Failures are logged with the
   * account name, client address and `context` (e.g. the OAuth client id), never the presented secret.
   */
  signIn(form: SignInForm, address: string, context: Record<string, unknown>): Promise<SignInResult>;
}

/**
 * The operator sign-in shared by the consent flow (interactions.ts) and the grants page (grants-page.ts).
 * An unknown name is checked against a dummy hash, so it takes as long as a wrong password.
 */
export function operatorSignIn(deps: { tenancy: TenancyStore; oauth: OAuthStore; limits: SignInLimits }, log: Logger): OperatorSignIn {
  let dummy: Promise<string> | null = null;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return {
    async signIn(form, address, context) {
      const name = str(form.name).trim() || null;
      const who = { account: name, remote: address, ...context };
      const lockedS = await deps.limits.lockedFor(name, address);
      if (lockedS > 0) {
        log.warn({ reason: 'locked', ...who }, 'oauth sign-in refused: too many failures');
        return { status: 429, message: `Too many failed sign-ins. Try again in ${Math.ceil(lockedS / 60)} minutes.` };
      }
      let tenantId: string | null;
      if (name) {
        const op = await deps.oauth.operatorByName(name);
        const ok = await verifyPassword(str(form.password), op?.password_hash ?? (await (dummy ??= hashPassword('unused'))));
        tenantId = op && ok ? op.tenant_id : null;
      } else {
        const key = str(form.api_key);
        tenantId = key ? ((await authenticate(deps.tenancy, key))?.tenantId ?? null) : null;
      }
      if (!tenantId) {
        await deps.limits.failed(name, address);
        log.warn({ reason: name ? 'wrong_password' : 'unknown_key', ...who }, 'oauth sign-in failed');
        return { status: 401, message: name ? 'Wrong user name or password.' : 'That API key is not valid.' };
      }
      if (name) await deps.limits.succeeded(name);
      return { tenantId };
    },
  };
}
