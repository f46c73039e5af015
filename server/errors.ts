import type { CallToolResult } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { ErrorCode, ErrorPayload } from '../shared/schemas/error.ts';

/**
 * The one error type of the service. `field` is the JSON path of the offending input
 * (`args.reference_images[2]`), `message` the rule in words. Wrap causes with `{ cause }`.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly field: string | null;
  readonly details: Record<string, unknown> | undefined;
  /** Errors that reach a user say so; `internal` errors never carry their cause outward. */
  readonly isUserFacing: boolean;

  constructor(code: ErrorCode, field: string | null, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'ServiceError';
    this.code = code;
    this.field = field;
    this.details = options?.details;
    this.isUserFacing = code !== 'internal';
  }

  toPayload(): ErrorPayload {
    return { code: this.code, field: this.field, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

/**
 * `busy`: the server is at its limit of concurrent work and refused the call before changing anything;
 * the same call may be retried. `details.retry_after_ms` says how long to wait (a hint, not a promise).
 * @param retryAfterMs ms until capacity is likely free
 */
export function busyError(message: string, retryAfterMs: number, details: Record<string, unknown> = {}): ServiceError {
  return new ServiceError('busy', null, `${message} (details.retry_after_ms)`, { details: { ...details, retry_after_ms: retryAfterMs } });
}

/** Whose budget a `rate_limited` call spent: its API key's, or its tenant's (all its keys). */
export type RateLimitScope = 'api_key' | 'tenant';

/**
 * `rate_limited`: the API key or its tenant made more calls of this cost class in the current window than
 * allowed; the call was refused before anything was done. The same call may be retried after
 * `details.retry_after_s` (s, rounded up; `retry_after_ms` the same in ms).
 * @param o.costClass `cheap` | `costly` (tool calls) or `request` (HTTP requests)
 * @param o.limit calls allowed per window; o.windowMs the window, ms
 */
export function rateLimitedError(o: {
  scope: RateLimitScope;
  costClass: string;
  limit: number;
  windowMs: number;
  retryAfterMs: number;
}): ServiceError {
  const who = o.scope === 'api_key' ? 'this API key' : "this API key's tenant";
  const retryAfterS = Math.max(1, Math.ceil(o.retryAfterMs / 1000));
  return new ServiceError(
    'rate_limited',
    null,
    `${who} made more than ${o.limit} ${o.costClass} calls in ${o.windowMs / 1000} s; retry after ${retryAfterS} s (details.retry_after_s)`,
    {
      details: {
        scope: o.scope,
        cost_class: o.costClass,
        limit: o.limit,
        window_ms: o.windowMs,
        retry_after_ms: o.retryAfterMs,
        retry_after_s: retryAfterS,
      },
    },
  );
}

/** Why a download failed (`fetch_failed` `details.cause`). */
export type FetchFailure =
  | 'dns_not_found'
  | 'dns_unavailable'
  | 'connection_refused'
  | 'connection_reset'
  | 'host_unreachable'
  | 'timeout'
  | 'tls'
  | 'http_status'
  | 'network';

/**
 * `fetch_failed`: a URL the caller gave is well-formed and allowed, but the network did not deliver it.
 * Distinct from `invalid_argument` (something the caller must change): `details.retryable` says whether
 * the same call may succeed later (refused, reset, timeout, DNS server trouble, HTTP 5xx/429 yes; unknown
 * host name, TLS certificate problems no).
 * @param field the JSON path of the URL (`args.url`, `args.reference_images[1]`)
 * @param host the URL's host name
 * @param code the system or library error code when there is one (`ECONNREFUSED`, `CERT_HAS_EXPIRED`, HTTP status)
 */
export function fetchFailedError(
  field: string,
  host: string,
  cause: FetchFailure,
  retryable: boolean,
  message: string,
  options: { code?: string | number | undefined; cause?: unknown } = {},
): ServiceError {
  return new ServiceError('fetch_failed', field, message, {
    cause: options.cause,
    details: { host, cause, retryable, ...(options.code !== undefined ? { code: options.code } : {}) },
  });
}

/** JSON path of a zod issue path under a prefix: `['tags', 2]` → `args.tags[2]`. */
export function jsonPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out;
}

/**
 * Map a zod error to `invalid_argument`. The first issue names `field`; all issues are listed in
 * `details.issues` so a caller can fix everything at once.
 */
export function fromZodError(error: z.ZodError, prefix = 'args'): ServiceError {
  const issues = error.issues.map((i) => {
    const field = jsonPath(prefix, i.path);
    let message = i.message;
    if (i.code === 'unrecognized_keys') message = `unknown field(s): ${(i as { keys: string[] }).keys.join(', ')}`;
    else if (i.code === 'invalid_type' && /received undefined/.test(i.message)) message = 'is required';
    return { field, message };
  });
  const first = issues[0] ?? { field: prefix, message: 'is invalid' };
  const message = issues.map((i) => `${i.field}: ${i.message}`).join('; ');
  return new ServiceError('invalid_argument', first.field, message, { details: { issues } });
}

/** Build the `isError: true` tool result for an error payload (text block holds the same JSON). */
export function toErrorResult(payload: ErrorPayload): CallToolResult {
  return {
    isError: true,
    structuredContent: { error: payload },
    content: [{ type: 'text', text: JSON.stringify({ error: payload }) }],
  };
}
