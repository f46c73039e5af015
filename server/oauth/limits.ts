import { RateLimiterPostgres, RateLimiterRes, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Stores } from '../stores.ts';
import { preparedOnce, unnamedStatements } from '../tenancy/rate-limits.ts';

/** Wrong sign-ins of one account before it is locked (issue 37 done-when 4). */
export const ACCOUNT_FAILURES = 5;
/** Wrong sign-ins (any account, any API key) from one client address before it is locked. */
export const ADDRESS_FAILURES = 20;
/** Token and registration requests one client address may make per minute. */
export const TOKEN_REQUESTS_PER_MIN = 60;
/** How long failures are remembered, and a lock lasts, seconds. */
export const LOCK_S = 15 * 60;

export interface SignInLimits {
  /** Seconds until `account` (an operator name, or null for API-key sign-in) or `address` may try again; 0 = now. */
  lockedFor(account: string | null, address: string): Promise<number>;
  /** Count a failed sign-in against the account and the address. */
  failed(account: string | null, address: string): Promise<void>;
  /** Forget an account's failures after it signed in. */
  succeeded(account: string): Promise<void>;
  /** Count a token or registration request of `address`. @returns seconds to wait when over TOKEN_REQUESTS_PER_MIN, else 0 */
  tokenRequest(address: string): Promise<number>;
}

/**
 * Brute-force limits of the sign-in form (rate-limiter-flexible, counters in the configured database's
 * `oauth_sign_in_limits` table so every process shares them): `ACCOUNT_FAILURES` wrong passwords lock
 * that account for `LOCK_S`, without touching other accounts; `ADDRESS_FAILURES` failures of any kind
 * lock the client address. Only failures count, so an operator signing in normally is never limited.
 */
export function signInLimits(stores: Stores): SignInLimits {
  const make = (keyPrefix: string, points: number, duration = LOCK_S): RateLimiterAbstract => {
    const common = { tableName: 'oauth_sign_in_limits', tableCreated: true, keyPrefix, points, duration, blockDuration: duration };
    const d = stores.database;
    return d.kind === 'sqlite'
      ? // each statement prepared once, as the tool-call limits do (tenancy/rate-limits.ts): token requests come in floods
        new RateLimiterSQLite({ ...common, storeClient: preparedOnce(d.db), storeType: 'better-sqlite3' })
      : new RateLimiterPostgres({ ...common, storeClient: unnamedStatements(d.pool), storeType: 'pool' });
  };
  const account = make('acct', ACCOUNT_FAILURES);
  const address = make('addr', ADDRESS_FAILURES);
  const tokens = make('tok', TOKEN_REQUESTS_PER_MIN, 60);
  const remaining = async (l: RateLimiterAbstract, key: string, max: number): Promise<number> => {
    const r = await l.get(key);
    return r && r.consumedPoints >= max ? Math.ceil(r.msBeforeNext / 1000) : 0;
  };
  const swallowLimit = (e: unknown): void => {
    // consume() rejects with a RateLimiterRes once the points are spent: that is the lock, not an error
    if (!(e instanceof RateLimiterRes)) throw e;
  };
  return {
    async lockedFor(acct, addr) {
      return Math.max(await remaining(address, addr, ADDRESS_FAILURES), acct ? await remaining(account, acct, ACCOUNT_FAILURES) : 0);
    },
    async failed(acct, addr) {
      await address.consume(addr).catch(swallowLimit);
      if (acct) await account.consume(acct).catch(swallowLimit);
    },
    async succeeded(acct) {
      await account.delete(acct);
    },
    async tokenRequest(addr) {
      try {
        await tokens.consume(addr);
        return 0;
      } catch (e) {
        if (e instanceof RateLimiterRes) return Math.max(1, Math.ceil(e.msBeforeNext / 1000));
        throw e;
      }
    },
  };
}
