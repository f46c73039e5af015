import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import { ServiceError } from '../errors.ts';

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

export interface FetchedBody { bytes: Buffer; contentType: string | null; finalUrl: string }

/** True for addresses a server-side fetch must not reach (RFC 1918, loopback, link-local, ULA, …). */
export function isPrivateAddress(address: string): boolean {
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() !== 'unicast';
}

function blocked(url: string, why: string): ServiceError {
  return new ServiceError('invalid_argument', 'args.url', `must point to a public http(s) host (${why}): ${url}`);
}

/**
 * An undici Agent whose DNS lookup refuses private addresses, so the address checked is the address
 * connected to (no DNS-rebinding gap between check and connect).
 */
function guardedAgent(allowPrivate: boolean): Agent {
  return new Agent({
    connect: {
      lookup(hostname, options, callback) {
        dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
          if (err) return callback(err, '', 0);
          const list = addresses as dns.LookupAddress[];
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
 * Fetch a URL for import: http/https only, ≤ `maxRedirects` redirects (each hop re-checked),
 * private/loopback/link-local targets refused unless allowed, body capped at `maxBytes`, one deadline.
 * @throws ServiceError invalid_argument (args.url) for refused targets, HTTP errors, oversize bodies, timeouts
 */
export async function fetchUrl(url: string, policy: FetchPolicy): Promise<FetchedBody> {
  const dispatcher = guardedAgent(policy.allowPrivate);
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
        res = await request(current, { method: 'GET', dispatcher, signal, headers: { accept: 'image/*,*/*;q=0.5', 'user-agent': 'atelier-import/0.1' } });
      } catch (e) {
        const err = e as { code?: string; cause?: { code?: string }; name?: string };
        if (err.code === 'EPRIVATE' || err.cause?.code === 'EPRIVATE') throw blocked(current, 'resolves to a private address');
        if (signal.aborted) throw new ServiceError('invalid_argument', 'args.url', `download did not finish within ${policy.timeoutMs} ms`, { cause: e });
        throw new ServiceError('invalid_argument', 'args.url', `could not be downloaded (${err.code ?? err.name ?? 'network error'})`, { cause: e });
      }
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        await res.body.dump();
        if (hop >= policy.maxRedirects) throw new ServiceError('invalid_argument', 'args.url', `followed more than ${policy.maxRedirects} redirects`);
        current = new URL(String(res.headers.location), current).toString();
        continue;
      }
      if (res.statusCode !== 200) {
        await res.body.dump();
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
    if (signal.aborted) throw new ServiceError('invalid_argument', 'args.url', `download did not finish within ${policy.timeoutMs} ms`, { cause: e });
    throw new ServiceError('invalid_argument', 'args.url', 'could not be downloaded', { cause: e });
  } finally {
    void dispatcher.close();
  }
}
