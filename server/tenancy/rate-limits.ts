import type { Database, Statement } from 'better-sqlite3';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ROUTER } from '../../shared/routers.ts';
import type { PgPool } from '../db/postgres/pool.ts';
import type { Principal } from '../domain/scope.ts';
import { rateLimitedError, type RateLimitScope, type ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ActionContext, ActionOutput, RouterImpls } from '../routers/types.ts';

/**
 * Cost class of a tool call: `costly` for the calls that decode images, write blobs or spend credits
 * (import, upload, upload `begin`/`complete`, every generate/edit/composite of svc_drafts), `cheap` for
 * everything else (search, view, select, list, get, discover, upload chunks and status …). A chunked
 * upload sends up to ~100 chunks: counting each as costly would refuse a large file half way.
 */
export type CostClass = 'cheap' | 'costly';

/** Counted classes: the two tool-call classes, and `request` (every HTTP request to /mcp, before the MCP layer). */
export type LimitClass = CostClass | 'request';

/** The cost class of a router action. */
export function costClassOf(router: string, action: string): CostClass {
  if (router === ROUTER.drafts || router === ROUTER.assetImport || router === ROUTER.assetUpload) return 'costly';
  if (router === ROUTER.assetUploadApp && (action === 'begin' || action === 'complete')) return 'costly';
  return 'cheap';
}

/** Calls per minute per API key and per tenant of each cost class, and HTTP requests per minute per key. */
export interface RateLimitSettings {
  cheapPerKey: number;
  cheapPerTenant: number;
  costlyPerKey: number;
  costlyPerTenant: number;
  requestsPerKey: number;
}

/** Where the counters live: the configured database, so every process on it shares them. */
export type RateLimitStore = { kind: 'sqlite'; db: Database } | { kind: 'postgres'; pool: PgPool };

export interface RateLimits {
  /**
   * Count one call of `principal` against its key's and then its tenant's limit of the action's class.
   * @throws ServiceError `rate_limited` (details: scope, cost_class, limit, window_ms, retry_after_ms, retry_after_s) when either is spent; nothing else was done
   */
  consume(principal: Principal, router: string, action: string): Promise<void>;
  /**
   * Count one HTTP request to /mcp of `principal`'s key (class `request`).
   * @returns null when allowed, else the seconds until the key's window resets (for `Retry-After`, ≥ 1)
   */
  consumeRequest(principal: Principal): Promise<number | null>;
  /**
   * The `rate_limited` refusal a call of `principal` would get, known without counting: this process saw its
   * key (or its tenant) refused for the action's cost class and that window has not reset. A refused caller
   * stays refused until then whatever it sends (the limiters block it in memory too), so the HTTP layer
   * answers such a call before the MCP layer does any work for it.
   * @returns the error to answer with, or null when `consume` must decide
   */
  refusedFromMemory(principal: Principal, router: string, action: string): ServiceError | null;
}

/** The fixed window of every limit, s. */
export const WINDOW_S = 60;

/**
 * node-postgres as RateLimiterPostgres's `storeType: 'pool'` client, every query sent as an UNNAMED
 * statement. The library names its statements (`rate_limits:rlflx-upsert`), and node-postgres then
 * Parses each name once per connection and reuses it. A named statement lives in the server session, so
 * that breaks wherever a session outlives or is shared by connections: on PGlite every connection of every
 * process shares one session, so the second process's first Parse failed with 42P05 "prepared statement
 * already exists" (the `internal` answers of the reverted limiter); PgBouncer in transaction mode does
 * likewise. An unnamed statement costs one Parse per query, as every other query of our stores.
 */
export function unnamedStatements(pool: PgPool): { query(q: { text: string; values?: unknown[] }): Promise<unknown> } {
  return { query: (q) => pool.query({ text: q.text, ...(q.values ? { values: q.values } : {}) }) };
}

/**
 * better-sqlite3 as RateLimiterSQLite's `storeClient`, each SQL text prepared once and run as its own
 * statement. The library prepares its upsert again on every call (`_upsertTransactionBetterSQLite3`:
 * `conn.transaction(() => conn.prepare(upsertQuery).get(…))()`), and with three limiters counted per tool
 * call that re-preparing was 40% of the limiters' cost in the load profile (bench/load-profile.ts). The
 * transaction it opens holds that one statement only, and one SQLite statement is atomic on its own
 * (https://www.sqlite.org/lang_transaction.html: "any command that accesses the database … will
 * automatically start a transaction"), so `transaction` here runs the function as it is: BEGIN and COMMIT
 * around it, and the wrapper better-sqlite3 builds per call, were half of what was left. The library tells
 * better-sqlite3 from sqlite3 by `prepare` present and `run` absent, which this object keeps.
 */
export function preparedOnce(db: Database): Pick<Database, 'prepare' | 'transaction'> {
  const statements = new Map<string, Statement>();
  return {
    prepare: ((sql: string) => {
      let st = statements.get(sql);
      if (!st) {
        st = db.prepare(sql);
        statements.set(sql, st);
      }
      return st;
    }) as Database['prepare'],
    // the upsert alone, in SQLite's automatic transaction (see above)
    transaction: ((fn: (...args: unknown[]) => unknown) => fn) as unknown as Database['transaction'],
  };
}

/**
 * Per-key and per-tenant fixed-window limits (one minute) by cost class, counted by rate-limiter-flexible
 * in the configured database: RateLimiterSQLite on better-sqlite3, RateLimiterPostgres on the pool (also
 * PGlite, through `unnamedStatements`). The table `rate_limits` is made by our migrations (SQLite 0058,
 * PostgreSQL 0016), so the limiters run with `tableCreated: true`: several limiters creating it at once
 * in a new PostgreSQL schema raced on pg_type. A key spends its own budget and its tenant's, so one busy
 * key cannot take all of its tenant's share and no tenant can take another's. When the database fails,
 * each limiter counts in memory instead (the library's `insuranceLimiter`): a limiter outage never turns
 * a call into `internal`.
 * Library: https://github.com/animir/node-rate-limiter-flexible (wiki: PostgreSQL, SQLite, Insurance-Strategy)
 */
export function createRateLimits(store: RateLimitStore, s: RateLimitSettings, log: Logger): RateLimits {
  const make = (keyPrefix: string, points: number): RateLimiterAbstract => {
    const common = {
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix,
      points,
      duration: WINDOW_S,
      // a refused id is then refused from memory until its window ends: a flood costs no database round trips
      inMemoryBlockOnConsumed: points + 1,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: WINDOW_S }),
    };
    return store.kind === 'sqlite'
      ? new RateLimiterSQLite({ ...common, storeClient: preparedOnce(store.db), storeType: 'better-sqlite3' })
      : new RateLimiterPostgres({ ...common, storeClient: unnamedStatements(store.pool), storeType: 'pool' });
  };
  const limiters = {
    cheap: { key: make('cheap_key', s.cheapPerKey), tenant: make('cheap_tenant', s.cheapPerTenant) },
    costly: { key: make('costly_key', s.costlyPerKey), tenant: make('costly_tenant', s.costlyPerTenant) },
  };
  const requests = make('request_key', s.requestsPerKey);
  /** @returns null when allowed, else ms until the window resets */
  const spend = async (limiter: RateLimiterAbstract, id: string): Promise<number | null> => {
    try {
      await limiter.consume(id);
      return null;
    } catch (e) {
      if (e instanceof RateLimiterRes) return Math.max(1, e.msBeforeNext);
      // neither the store nor the memory insurance answered: let the call through rather than fail it
      log.error({ err: e, limiter: limiter.keyPrefix }, 'rate limiter failed; call allowed');
      return null;
    }
  };
  const refuse = (scope: RateLimitScope, cls: LimitClass, limiter: RateLimiterAbstract, retryAfterMs: number) =>
    rateLimitedError({ scope, costClass: cls, limit: limiter.points, windowMs: WINDOW_S * 1000, retryAfterMs });
  /** `<class>:<scope>:<id>` → epoch ms its window resets, for the ids refused lately (expired ones pruned past 1000) */
  const refusedUntil = new Map<string, number>();
  const remember = (cls: CostClass, scope: RateLimitScope, id: string, waitMs: number): void => {
    const now = Date.now();
    if (refusedUntil.size >= 1000) for (const [k, until] of refusedUntil) if (until <= now) refusedUntil.delete(k);
    refusedUntil.set(`${cls}:${scope}:${id}`, now + waitMs);
  };
  const waitFor = (cls: CostClass, scope: RateLimitScope, id: string, now: number): number | null => {
    const until = refusedUntil.get(`${cls}:${scope}:${id}`);
    return until !== undefined && until > now ? until - now : null;
  };
  return {
    async consume(principal, router, action) {
      const cls = costClassOf(router, action);
      const { key, tenant } = limiters[cls];
      const keyWait = await spend(key, principal.apiKeyId);
      if (keyWait !== null) {
        remember(cls, 'api_key', principal.apiKeyId, keyWait);
        throw refuse('api_key', cls, key, keyWait);
      }
      const tenantWait = await spend(tenant, principal.tenantId);
      if (tenantWait !== null) {
        remember(cls, 'tenant', principal.tenantId, tenantWait);
        throw refuse('tenant', cls, tenant, tenantWait);
      }
    },
    refusedFromMemory(principal, router, action) {
      const cls = costClassOf(router, action);
      const now = Date.now();
      const keyWait = waitFor(cls, 'api_key', principal.apiKeyId, now);
      if (keyWait !== null) return refuse('api_key', cls, limiters[cls].key, keyWait);
      const tenantWait = waitFor(cls, 'tenant', principal.tenantId, now);
      return tenantWait === null ? null : refuse('tenant', cls, limiters[cls].tenant, tenantWait);
    },
    async consumeRequest(principal) {
      const wait = await spend(requests, principal.apiKeyId);
      return wait === null ? null : Math.max(1, Math.ceil(wait / 1000));
    },
  };
}

/**
 * The routers with every handler behind `limits.consume`: an over-limit call is refused before its
 * handler runs. Every handler context carries the authenticated caller (stdio and HTTP alike).
 */
export function withRateLimits(routers: RouterImpls, limits: RateLimits): RouterImpls {
  type AnyHandler = (args: unknown, ctx: ActionContext) => Promise<ActionOutput<unknown>>;
  const out: Record<string, unknown> = {};
  for (const [name, impl] of Object.entries(routers)) {
    const handlers: Record<string, AnyHandler> = {};
    for (const [action, h] of Object.entries(impl.handlers as Record<string, AnyHandler>)) {
      handlers[action] = async (args, ctx) => {
        await limits.consume(ctx.principal, name, action);
        return h(args, ctx);
      };
    }
    out[name] = { name, handlers };
  }
  return out as RouterImpls;
}
