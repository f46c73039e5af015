import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent, fetch as undiciFetch } from 'undici';
import { fetchFailedError, ServiceError, type FetchFailure } from '../errors.ts';

export interface FetchPolicy {
  /** refuse responses larger than this many bytes */
  maxBytes: number;
  /** whole-request deadline in ms (headers + body, across redirects) */
  timeoutMs: number;
  /** at most this many redirects are followed */
  maxRedirects: number;
  /** allow private, loopback and link-local targets (tests only) */
  allowPrivate: boolean;
}

export interface FetchedBody {
  bytes: Buffer;
  contentType: string | null;
  finalUrl: string;
}

const bits32 = (hi: number, lo: number): ipaddr.IPv4 => ipaddr.fromByteArray([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]) as ipaddr.IPv4;

/**
 * The IPv4 address an IPv6 address carries, for the forms that embed one: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d` (RFC 4291 §2.5.5.1, deprecated but still routed to IPv4 by some stacks),
 * SIIT `::ffff:0:a.b.c.d` (RFC 6145), NAT64 `64:ff9b::/96` and `64:ff9b:1::/48` (RFC 6052, RFC 8215),
 * 6to4 `2002:AABB:CCDD::/48` (RFC 3056) and Teredo `2001::/32` (RFC 4380: the client address, stored
 * inverted in the last 32 bits). @returns null for every other IPv6 address
 */
export function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = ip.parts; // eight 16-bit groups
  const zeros = (from: number, to: number): boolean => p.slice(from, to).every((x) => x === 0);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return bits32(p[6]!, p[7]!); // SIIT
  if (zeros(0, 6) && (p[6] !== 0 || p[7]! > 1)) return bits32(p[6]!, p[7]!); // IPv4-compatible (not :: or ::1)
  if (p[0] === 0x64 && p[1] === 0xff9b && (zeros(2, 6) || p[2] === 1)) return bits32(p[6]!, p[7]!); // NAT64
  if (p[0] === 0x2002) return bits32(p[1]!, p[2]!); // 6to4
  if (p[0] === 0x2001 && p[1] === 0) return bits32(p[6]! ^ 0xffff, p[7]! ^ 0xffff); // Teredo client
  return null;
}

/**
 * True for addresses a server-side fetch must not reach (RFC 1918, loopback, link-local, ULA, …). IPv6
 * forms that embed an IPv4 address are judged by that address (so `[::127.0.0.1]` or
 * `[64:ff9b::a9fe:a9fe]` are refused while NAT64 of a public address, as DNS64 hands out on IPv6-only
 * hosts, is allowed); other IPv6 addresses must be global unicast.
 * Ranges: ipaddr.js `range()` (IANA special-purpose registries).
 */
export function isPrivateAddress(address: string): boolean {
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip.range() !== 'unicast';
  const v4 = embeddedIPv4(ip as ipaddr.IPv6);
  if (v4) return v4.range() !== 'unicast';
  return ip.range() !== 'unicast';
}

function blocked(url: string, why: string): ServiceError {
  return new ServiceError('invalid_argument', 'args.url', `must point to a public http(s) host (${why}): ${url}`);
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_(GET|VERIFY)_|HOSTNAME_MISMATCH)/;

/** A network failure by its error code (Node's system codes, undici's `UND_ERR_*`, OpenSSL's verify codes). */
function classify(code: string | undefined): { cause: FetchFailure; retryable: boolean; words: string } {
  switch (code) {
    case 'ENOTFOUND':
      return { cause: 'dns_not_found', retryable: false, words: 'no such host (DNS)' };
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return { cause: 'dns_unavailable', retryable: true, words: 'the host name could not be resolved now (DNS)' };
    case 'ECONNREFUSED':
      return { cause: 'connection_refused', retryable: true, words: 'the connection was refused' };
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return { cause: 'connection_reset', retryable: true, words: 'the connection was closed before the download finished' };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENETDOWN':
      return { cause: 'host_unreachable', retryable: true, words: 'the host is unreachable' };
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return { cause: 'timeout', retryable: true, words: 'the host did not answer in time' };
  }
  if (code && TLS_CODE.test(code)) return { cause: 'tls', retryable: false, words: 'the TLS handshake or certificate check failed' };
  return { cause: 'network', retryable: true, words: 'a network error' };
}

/** The error code of a failure, looking through undici's and fetch's `cause` chain. */
function errorCode(e: unknown): string | undefined {
  for (
    let cur = e as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    cur && depth < 4;
    cur = cur.cause as typeof cur, depth++
  ) {
    if (typeof cur.code === 'string' && cur.code !== 'UND_ERR_ABORTED') return cur.code;
  }
  return undefined;
}

function networkFailure(url: string, e: unknown, timedOut: boolean, timeoutMs: number): ServiceError {
  const host = new URL(url).hostname;
  if (timedOut)
    return fetchFailedError(
      'args.url',
      host,
      'timeout',
      true,
      `could not be downloaded from ${host}: no complete answer within ${timeoutMs} ms`,
      {
        cause: e,
      },
    );
  const code = errorCode(e);
  const c = classify(code);
  return fetchFailedError(
    'args.url',
    host,
    c.cause,
    c.retryable,
    `could not be downloaded from ${host}: ${c.words}${code ? ` (${code})` : ''}`,
    {
      code,
      cause: e,
    },
  );
}

/** undici, imported on the first outbound fetch: most processes (one-shot commands, stdio servers) make none. */
const loadUndici = (): Promise<typeof import('undici')> => import('undici');

/**
 * An undici Agent whose DNS lookup refuses private addresses, so the address checked is the address
 * connected to (no DNS-rebinding gap between check and connect).
 */
async function guardedAgent(allowPrivate: boolean): Promise<Agent> {
  const { Agent } = await loadUndici();
  return new Agent({
    connect: {
      lookup(hostname, options, callback) {
        dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
          if (err) return callback(err, '', 0);
          const list = addresses;
          const bad = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
          if (bad) return callback(Object.assign(new Error(`blocked private address ${bad.address}`), { code: 'EPRIVATE' }), '', 0);
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
          const first = list[0]!;
          callback(null, first.address, first.family);
        });
      },
    },
  });
}

/**
 * A WHATWG `fetch` with the URL import's address rule (for fetches the server makes on a caller's behalf that
 * are not imports, e.g. OAuth Client ID Metadata Documents): private, loopback and link-local targets are
 * refused, both as IP literals and after DNS (the guarded agent), unless `allowPrivate`.
 * @throws TypeError "fetch failed" (as fetch does) with `cause.code` `EPRIVATE` for a refused address
 */
export function guardedFetch(allowPrivate: boolean): (url: string | URL, init?: RequestInit) => Promise<Response> {
  let dispatcher: Promise<Agent> | null = null;
  return async (url, init) => {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(host) && !allowPrivate && isPrivateAddress(host))
      throw new TypeError('fetch failed', { cause: Object.assign(new Error(`blocked private address ${host}`), { code: 'EPRIVATE' }) });
    const { dispatcher: _theirs, ...rest } = (init ?? {}) as RequestInit & { dispatcher?: unknown };
    const { fetch } = await loadUndici();
    const agent = await (dispatcher ??= guardedAgent(allowPrivate));
    return (await fetch(url, { ...(rest as Parameters<typeof undiciFetch>[1]), dispatcher: agent })) as unknown as Response;
  };
}

/**
 * Fetch a URL for import: http/https only, ≤ `maxRedirects` redirects (each hop re-checked),
 * private/loopback/link-local targets refused unless allowed, body capped at `maxBytes`, one deadline.
 * @throws ServiceError invalid_argument (args.url) for refused targets, HTTP 4xx, oversize bodies; fetch_failed for
 *   network failures (DNS, refused or reset connections, timeouts, TLS, HTTP 5xx/429/408) with `details.host`, `cause`, `retryable`
 */
export async function fetchUrl(url: string, policy: FetchPolicy): Promise<FetchedBody> {
  const { request } = await loadUndici();
  const dispatcher = await guardedAgent(policy.allowPrivate);
  const signal = AbortSignal.timeout(policy.timeoutMs);
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      const u = new URL(current);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw blocked(current, `scheme ${u.protocol} is not allowed`);
      const host = u.hostname.replace(/^\[|\]$/g, '');
      if (net.isIP(host) && !policy.allowPrivate && isPrivateAddress(host)) throw blocked(current, 'private address');
      let res;
      try {
        res = await request(current, {
          method: 'GET',
          dispatcher,
          signal,
          headers: { accept: 'image/*,*/*;q=0.5', 'user-agent': 'atelier-import/0.1' },
        });
      } catch (e) {
        const err = e as { code?: string; cause?: { code?: string }; name?: string };
        if (err.code === 'EPRIVATE' || err.cause?.code === 'EPRIVATE') throw blocked(current, 'resolves to a private address');
        throw networkFailure(current, e, signal.aborted, policy.timeoutMs);
      }
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        await res.body.dump();
        if (hop >= policy.maxRedirects)
          throw new ServiceError('invalid_argument', 'args.url', `followed more than ${policy.maxRedirects} redirects`);
        current = new URL(String(res.headers.location), current).toString();
        continue;
      }
      if (res.statusCode !== 200) {
        await res.body.dump();
        // The server's trouble (5xx, 429 Too Many Requests, 408) may pass; any other status is the URL's.
        if (res.statusCode >= 500 || res.statusCode === 429 || res.statusCode === 408)
          throw fetchFailedError(
            'args.url',
            u.hostname,
            'http_status',
            true,
            `download from ${u.hostname} failed with HTTP ${res.statusCode}`,
            {
              code: res.statusCode,
            },
          );
        throw new ServiceError('invalid_argument', 'args.url', `download failed with HTTP ${res.statusCode}`);
      }
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (Number.isFinite(declared) && declared > policy.maxBytes) {
        await res.body.dump();
        throw new ServiceError('invalid_argument', 'args.url', `is ${declared} bytes; the limit is ${policy.maxBytes} bytes`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > policy.maxBytes) {
          res.body.destroy();
          throw new ServiceError('invalid_argument', 'args.url', `exceeds the limit of ${policy.maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const ct = res.headers['content-type'];
      return { bytes: Buffer.concat(chunks), contentType: typeof ct === 'string' ? ct : null, finalUrl: current };
    }
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    throw networkFailure(current, e, signal.aborted, policy.timeoutMs);
  } finally {
    void dispatcher.close();
  }
}
