/**
 * Retry decisions for paid image APIs. Pure: the HTTP clients feed in status and headers.
 *
 * Follows the OpenAI SDK's policy (openai/openai-node `src/client.ts` `shouldRetry` / `retryRequest`,
 * summarised in research/anchors.md §2.1): retry 408, 409, 429 and ≥ 500; honour `x-should-retry`;
 * take `retry-after-ms`, then `retry-after` (seconds or HTTP date); hints above the cap fall back to
 * exponential backoff. Google RPC errors carry `RetryInfo.retryDelay` ("37s"), parsed by
 * `parseGoogleDuration` (https://cloud.google.com/apis/design/errors#error_details).
 */

/** True when a response status is worth retrying (before header overrides). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Server-suggested delay from response headers, in ms, or null when there is none.
 * @param headers lower-case header names
 * @param nowMs current time for HTTP-date `retry-after`
 */
export function retryAfterMs(headers: Record<string, string | undefined>, nowMs: number): number | null {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headers['retry-after'];
  if (ra !== undefined && ra.trim() !== '') {
    if (Number.isFinite(Number(ra))) return Math.max(0, Number(ra) * 1000);
    const at = Date.parse(ra);
    if (Number.isFinite(at)) return Math.max(0, at - nowMs);
  }
  return null;
}

/** Google `Duration` JSON form (`"37s"`, `"1.5s"`) → ms; null when malformed. */
export function parseGoogleDuration(d: unknown): number | null {
  if (typeof d !== 'string') return null;
  const m = /^(\d+(?:\.\d+)?)s$/.exec(d.trim());
  return m ? Math.round(Number(m[1]) * 1000) : null;
}

/**
 * Exponential backoff with jitter for attempt `n` (0 = first retry): 0.5 s · 2ⁿ, capped at 8 s, minus
 * up to 25 % jitter (the OpenAI SDK's schedule).
 * @param random a value in [0, 1) (injected for determinism in tests)
 */
export function backoffMs(n: number, random: number): number {
  const base = Math.min(500 * 2 ** n, 8000);
  return Math.round(base * (1 - 0.25 * random));
}

/**
 * The wait before the next attempt: the server's hint when it is within `maxHintMs`, otherwise backoff.
 * @returns ms to wait
 */
export function nextDelayMs(hintMs: number | null, attempt: number, maxHintMs: number, random: number): number {
  if (hintMs !== null && hintMs <= maxHintMs) return hintMs;
  return backoffMs(attempt, random);
}
