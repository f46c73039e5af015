import { z } from 'zod';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';

/**
 * A minimal Shopify Admin GraphQL client: POST `{endpoint}` with `X-Shopify-Access-Token`, zod-parsed
 * responses, and the cost-based rate limit handled the way Shopify documents it
 * (https://shopify.dev/docs/api/usage/limits#graphql-admin-api-rate-limits): a throttled request comes
 * back as HTTP 200 with `errors[].extensions.code = "THROTTLED"` (or HTTP 429 with `Retry-After`), and
 * `extensions.cost.throttleStatus {maximumAvailable, currentlyAvailable, restoreRate}` tells how long
 * the leaky bucket needs to refill for the query's `requestedQueryCost`. We wait exactly that long
 * (bounded), and also pause before a request when the last response showed the bucket too empty.
 */
export interface AdminGraphqlClient {
  /**
   * Run one query.
   * @throws ServiceError provider_failed (HTTP error, GraphQL errors, bad response shape, retries exhausted)
   */
  request<T>(query: string, variables: Record<string, unknown>, data: z.ZodType<T>, signal?: AbortSignal): Promise<T>;
  /** Throttled responses retried so far (429 or THROTTLED). */
  readonly throttledRetries: number;
}

export interface AdminClientOptions {
  /** full GraphQL URL, e.g. https://my-shop.myshopify.com/admin/api/2025-01/graphql.json */
  endpoint: string;
  accessToken: string;
  timeoutMs: number;
  /** retries per request after throttling or 5xx/network errors */
  maxRetries?: number;
  /** longest single wait, ms */
  maxWaitMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  log: Logger;
}

const ThrottleStatusSchema = z.object({ maximumAvailable: z.number(), currentlyAvailable: z.number(), restoreRate: z.number().positive() });
const CostSchema = z.object({
  requestedQueryCost: z.number().nullable().optional(),
  actualQueryCost: z.number().nullable().optional(),
  throttleStatus: ThrottleStatusSchema.optional(),
});
const EnvelopeSchema = z.object({
  data: z.unknown().optional(),
  errors: z
    .union([
      z.array(z.object({ message: z.string(), extensions: z.object({ code: z.string().optional() }).loose().optional() }).loose()),
      z.string(),
    ])
    .optional(),
  extensions: z.object({ cost: CostSchema.optional() }).loose().optional(),
});

/** Shopify admin endpoint for a shop domain (`my-shop` or `my-shop.myshopify.com`) and API version. */
export function adminEndpoint(shopDomain: string, apiVersion: string): string {
  const host = shopDomain.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
  return `https://${host.includes('.') ? host : `${host}.myshopify.com`}/admin/api/${apiVersion}/graphql.json`;
}

/** The reason an AbortSignal carries, as an Error (the default reason is a DOMException `AbortError`). */
const abortReason = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(abortReason(signal));
      },
      { once: true },
    );
  });

/** Create the client. No request is made until `request` is called. */
export function createAdminGraphqlClient(o: AdminClientOptions): AdminGraphqlClient {
  const maxRetries = o.maxRetries ?? 8;
  const maxWaitMs = o.maxWaitMs ?? 60_000;
  const sleep = o.sleep ?? defaultSleep;
  let pauseBeforeNextMs = 0;
  let throttled = 0;
  const fail = (message: string, cause?: unknown): ServiceError =>
    new ServiceError('provider_failed', null, `Shopify Admin API (${o.endpoint}): ${message}`, cause !== undefined ? { cause } : undefined);
  /** ms until the bucket holds `needed` points again. */
  const refillMs = (cost: z.infer<typeof CostSchema> | undefined, needed: number | null | undefined): number => {
    const ts = cost?.throttleStatus;
    if (!ts || !needed) return 1000;
    return Math.min(maxWaitMs, Math.max(0, Math.ceil(((needed - ts.currentlyAvailable) / ts.restoreRate) * 1000)));
  };

  return {
    get throttledRetries() {
      return throttled;
    },
    async request(query, variables, data, signal) {
      for (let attempt = 0; ; attempt++) {
        if (pauseBeforeNextMs > 0) {
          await sleep(pauseBeforeNextMs, signal);
          pauseBeforeNextMs = 0;
        }
        let res: Response;
        try {
          res = await fetch(o.endpoint, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json', 'x-shopify-access-token': o.accessToken },
            body: JSON.stringify({ query, variables }),
            signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(o.timeoutMs)]) : AbortSignal.timeout(o.timeoutMs),
          });
        } catch (e) {
          if (signal?.aborted || attempt >= maxRetries) throw fail(`request failed: ${(e as Error).message}`, e);
          await sleep(Math.min(maxWaitMs, 250 * 2 ** attempt), signal);
          continue;
        }
        const text = await res.text();
        if (res.status === 429) {
          if (attempt >= maxRetries) throw fail(`still throttled (HTTP 429) after ${maxRetries} retries`);
          throttled++;
          const after = Number.parseFloat(res.headers.get('retry-after') ?? '');
          const waitMs = Number.isFinite(after) ? Math.min(maxWaitMs, after * 1000) : Math.min(maxWaitMs, 1000 * 2 ** attempt);
          o.log.info({ wait_ms: waitMs, attempt }, 'Shopify Admin API throttled (HTTP 429); waiting');
          await sleep(waitMs, signal);
          continue;
        }
        if (res.status >= 500) {
          if (attempt >= maxRetries) throw fail(`HTTP ${res.status} after ${maxRetries} retries`);
          await sleep(Math.min(maxWaitMs, 250 * 2 ** attempt), signal);
          continue;
        }
        if (res.status === 401 || res.status === 403)
          throw fail(`HTTP ${res.status}: the access token is invalid or lacks the read_products scope`);
        if (!res.ok) throw fail(`HTTP ${res.status}: ${text.slice(0, 300)}`);
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch (e) {
          throw fail('response is not JSON', e);
        }
        const env = EnvelopeSchema.safeParse(json);
        if (!env.success) throw fail(`unexpected response shape: ${env.error.issues[0]?.message ?? ''}`);
        const cost = env.data.extensions?.cost;
        const errors = typeof env.data.errors === 'string' ? [{ message: env.data.errors }] : (env.data.errors ?? []);
        if (errors.some((e) => (e as { extensions?: { code?: string } }).extensions?.code === 'THROTTLED' || e.message === 'Throttled')) {
          if (attempt >= maxRetries) throw fail(`still THROTTLED after ${maxRetries} retries`);
          throttled++;
          const waitMs = refillMs(cost, cost?.requestedQueryCost);
          o.log.info({ wait_ms: waitMs, attempt, cost }, 'Shopify Admin API THROTTLED; waiting for the bucket to refill');
          await sleep(waitMs, signal);
          continue;
        }
        if (errors.length > 0)
          throw fail(
            `GraphQL errors: ${errors
              .map((e) => e.message)
              .join('; ')
              .slice(0, 500)}`,
          );
        const parsed = data.safeParse(env.data.data);
        if (!parsed.success) {
          const i = parsed.error.issues[0];
          throw fail(`unexpected data at ${i?.path.join('.') ?? '?'}: ${i?.message ?? ''}`);
        }
        // Pace the next request: if the bucket now holds less than this query cost, wait for it to refill.
        const ts = cost?.throttleStatus;
        const requested = cost?.requestedQueryCost;
        if (ts && requested && ts.currentlyAvailable < requested) pauseBeforeNextMs = refillMs(cost, requested);
        return parsed.data;
      }
    },
  };
}
