import { isRetryableStatus, nextDelayMs, retryAfterMs } from '../domain/generation/retry.ts';
import { ServiceError } from '../errors.ts';

/** Retry and timeout settings of a paid-API client (from config). */
export interface RetryPolicy {
  /** retries after the first attempt */
  maxRetries: number;
  /** per-attempt deadline, ms (image models can take minutes; research/anchors.md §2.1) */
  timeoutMs: number;
  /** server retry hints above this are not waited for in-process, ms */
  maxRetryHintMs: number;
}

export interface HttpAttempt {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Decide about a failed attempt: `{ retry: true, hintMs }` to try again, `{ retry: false }` to give up.
 * Provider-specific (e.g. Google RetryInfo in the body, a daily quota that must not be retried).
 */
export type RetryClassifier = (a: HttpAttempt) => { retry: boolean; hintMs: number | null };

/** Default classifier: retryable statuses, `x-should-retry`, `retry-after-ms` / `retry-after`. */
export const headerRetry: RetryClassifier = (a) => {
  const should = a.headers['x-should-retry'];
  const retry = should === 'true' ? true : should === 'false' ? false : isRetryableStatus(a.status);
  return { retry, hintMs: retryAfterMs(a.headers, Date.now()) };
};

/** The reason an AbortSignal carries, as an Error (the default reason is a DOMException `AbortError`). */
const abortReason = (signal: AbortSignal): Error => (signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Send a request with retries: each attempt gets its own timeout; 2xx returns; a failure the
 * classifier marks retryable is retried after the server's hint (≤ `maxRetryHintMs`) or exponential
 * backoff; the last failure is returned for the caller to map. `build` is called per attempt (multipart
 * bodies are single-use).
 * @param label provider id for messages
 * @throws ServiceError provider_failed on network errors and timeouts after the last retry
 */
export async function sendWithRetry(
  label: string,
  url: string,
  build: () => RequestInit,
  policy: RetryPolicy,
  classify: RetryClassifier,
  opts: { signal: AbortSignal; onProgress?: ((message: string) => void) | undefined },
): Promise<HttpAttempt & { attempts: number }> {
  for (let attempt = 0; ; attempt++) {
    let res: HttpAttempt;
    try {
      const r = await fetch(url, { ...build(), signal: AbortSignal.any([opts.signal, AbortSignal.timeout(policy.timeoutMs)]) });
      const headers: Record<string, string> = {};
      r.headers.forEach((v, k) => {
        headers[k.toLowerCase()] = v;
      });
      res = { status: r.status, headers, body: await r.text() };
    } catch (e) {
      if (opts.signal.aborted) throw e;
      const timedOut = (e as Error).name === 'TimeoutError';
      if (attempt >= policy.maxRetries) {
        throw new ServiceError(
          'provider_failed',
          null,
          `${label}: ${timedOut ? `no response within ${policy.timeoutMs} ms` : `network error (${(e as Error).message})`} after ${attempt + 1} attempt(s); nothing was charged`,
          {
            cause: e,
            details: { provider: label, attempts: attempt + 1, retryable: true },
          },
        );
      }
      const wait = nextDelayMs(null, attempt, policy.maxRetryHintMs, Math.random());
      opts.onProgress?.(`${label}: ${timedOut ? 'timed out' : 'network error'}; retry ${attempt + 1} in ${wait} ms`);
      await sleep(wait, opts.signal);
      continue;
    }
    if (res.status >= 200 && res.status < 300) return { ...res, attempts: attempt + 1 };
    const c = classify(res);
    if (!c.retry || attempt >= policy.maxRetries || (c.hintMs !== null && c.hintMs > policy.maxRetryHintMs))
      return { ...res, attempts: attempt + 1 };
    const wait = nextDelayMs(c.hintMs, attempt, policy.maxRetryHintMs, Math.random());
    opts.onProgress?.(`${label}: HTTP ${res.status}; retry ${attempt + 1} of ${policy.maxRetries} in ${wait} ms`);
    await sleep(wait, opts.signal);
  }
}
