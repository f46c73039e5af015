import { z } from 'zod';

/** The closed set of error codes every action can return (STYLE.md §4). */
export const ErrorCodeSchema = z.enum([
  'invalid_argument',
  'not_found',
  'ambiguous_scope',
  'unsupported',
  'conversion_failed',
  'provider_failed',
  'conflict',
  'unauthenticated',
  'budget_exceeded',
  /** the server is at its limit of concurrent work (imports); nothing changed; retry after details.retry_after_ms */
  'busy',
  /**
   * a URL the caller gave (import url, reference_images, mask_url) could not be downloaded for a network
   * reason (DNS, refused or reset connection, timeout, TLS, HTTP 5xx/429); details: host, cause, retryable
   */
  'fetch_failed',
  /** the API key or its tenant made more calls of this cost class this minute than allowed; nothing was done; retry after details.retry_after_s */
  'rate_limited',
  /**
   * the tenant's storage quota would be exceeded (assets and staged uploads); nothing was stored;
   * details: limit_bytes, used_bytes, requested_bytes, asset_bytes, staged_bytes
   */
  'quota_exceeded',
  'internal',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/**
 * Structured error payload carried in `structuredContent.error` of an `isError: true` tool result.
 * `field` is the JSON path of the offending input (`args.reference_images[2]`); `message` states the rule.
 * `details` carries machine-readable extras (e.g. `candidates` for `ambiguous_scope`, `allowed` values).
 */
export const ErrorSchema = z.object({
  code: ErrorCodeSchema,
  field: z.string().nullable().describe('JSON path of the offending input, e.g. args.theme_id; null when not tied to one field'),
  message: z.string().describe('the rule that was broken, in words'),
  details: z.record(z.string(), z.unknown()).optional().describe('machine-readable extras: candidates, allowed values, retry hints'),
});
export type ErrorPayload = z.infer<typeof ErrorSchema>;
