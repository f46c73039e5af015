import type { Database } from 'better-sqlite3';
import { RateLimiterPostgres, RateLimiterRes, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ROUTER } from '../../shared/routers.ts';
import type { PgPool } from '../db/postgres/pool.ts';
import type { Principal } from '../domain/scope.ts';
import { ServiceError } from '../errors.ts';
import type { ActionContext, ActionOutput, RouterImpls } from '../routers/types.ts';

/**
 * Cost class of an action: `write` for the calls that decode images or spend credits (import, upload
 * `complete`, every generate/edit/composite), `read` for everything else (search, view, select, chunks …).
 */
export type CostClass = 'read' | 'write';

/** The cost class of a router action. */
export function costClassOf(router: string, action: string): CostClass {
  if (router === ROUTER.drafts || router === ROUTER.assetImport) return 'write';
  if (router === ROUTER.assetUploadApp && action === 'complete') return 'write';
  return 'read';
}

/** Calls per minute, per API key and per tenant, of each cost class. */
export interface RateLimitSettings {
  readPerKey: number;
  readPerTenant: number;
  writePerKey: number;
  writePerTenant: number;
}

/** Where the counters live: the configured database, so every process on it shares them. */
export type RateLimitStore = { kind: 'sqlite'; db: Database } | { kind: 'postgres'; pool: PgPool };

export interface RateLimits {
  /**
   * Count one call of `principal` against its key's and its tenant's limits of the action's class.
   * @throws ServiceError `rate_limited` (details.retry_after_ms, limit, scope) when either is spent; nothing else was done
   */
  consume(principal: Principal, router: string, action: string): Promise<void>;
}

/**
 * Per-key and per-tenant fixed-window limits (one minute) by cost class, counted by rate-limiter-flexible
 * in the configured database (RateLimiterSQLite on better-sqlite3, RateLimiterPostgres on the pool; the
 * library creates its table `rate_limits` on first use). A key spends its own budget and its tenant's, so
 * one busy key cannot take all of a tenant's share, and no tenant can take another's.
 * Library: https://github.com/animir/node-rate-limiter-flexible
 */
export function createRateLimits(store: RateLimitStore, s: RateLimitSettings): RateLimits {
  const make = (keyPrefix: string, points: number): RateLimiterAbstract =>
    store.kind === 'sqlite'
      ? new RateLimiterSQLite({
          storeClient: store.db,
          storeType: 'better-sqlite3',
          tableName: 'rate_limits',
          keyPrefix,
          points,
          duration: 60,
        })
      : new RateLimiterPostgres({ storeClient: store.pool, tableName: 'rate_limits', keyPrefix, points, duration: 60 });
  const limiters = {
    read: { key: make('read_key', s.readPerKey), tenant: make('read_tenant', s.readPerTenant) },
    write: { key: make('write_key', s.writePerKey), tenant: make('write_tenant', s.writePerTenant) },
  };
  const spend = async (limiter: RateLimiterAbstract, id: string, scope: 'api_key' | 'tenant', cls: CostClass): Promise<void> => {
    try {
      await limiter.consume(id);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const retryAfterMs = Math.max(1, e.msBeforeNext);
      throw new ServiceError(
        'rate_limited',
        null,
        `this ${scope === 'api_key' ? 'API key' : 'tenant'} made more than ${limiter.points} ${cls} calls this minute; retry after details.retry_after_ms`,
        { details: { retry_after_ms: retryAfterMs, limit: limiter.points, window_ms: 60_000, scope, cost_class: cls } },
      );
    }
  };
  return {
    async consume(principal, router, action) {
      const cls = costClassOf(router, action);
      await spend(limiters[cls].key, principal.apiKeyId, 'api_key', cls);
      await spend(limiters[cls].tenant, principal.tenantId, 'tenant', cls);
    },
  };
}

/**
 * The routers with every handler behind `limits.consume` (the call is refused before its handler runs).
 * Calls without a principal do not occur: every handler context carries the authenticated caller.
 */
export function withRateLimits(routers: RouterImpls, limits: RateLimits): RouterImpls {
  const out: Record<string, unknown> = {};
  for (const [name, impl] of Object.entries(routers)) {
    const handlers: Record<string, (args: unknown, ctx: ActionContext) => Promise<ActionOutput<unknown>>> = {};
    for (const [action, h] of Object.entries(
      impl.handlers as Record<string, (args: unknown, ctx: ActionContext) => Promise<ActionOutput<unknown>>>,
    )) {
      handlers[action] = async (args, ctx) => {
        await limits.consume(ctx.principal, name, action);
        return h(args, ctx);
      };
    }
    out[name] = { name, handlers };
  }
  return out as RouterImpls;
}
