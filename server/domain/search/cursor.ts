import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../../errors.ts';

/**
 * Opaque, versioned, tamper-evident page cursors bound to the query that made them.
 * Wire form: base64url(JSON payload) "." base64url(MAC), where MAC is HMAC-SHA256 (RFC 2104) under the
 * server secret over the payload and the stable JSON of the normalised query, truncated to its first
 * 128 bits (RFC 2104 §5; NIST SP 800-107 §5.3.3). The payload holds the version, the offset, and a
 * snapshot bound (`s`, max row id at page 1) so rows inserted while paging do not shift later pages;
 * the query is not in the cursor, only in its MAC, so a cursor from another query, workspace or tenant
 * — or an edited one — fails the MAC. About 50–60 characters (the agent sends it back with every page).
 */
export interface CursorState {
  offset: number;
  snapshot: number;
}

const VERSION = 2;
/** Bytes of the HMAC-SHA256 kept in a cursor: 128 bits. */
const MAC_BYTES = 16;

export interface CursorCodec {
  /** Encode the position after a page. */
  encode(query: unknown, state: CursorState): string;
  /**
   * Decode a cursor for `query`.
   * @throws ServiceError invalid_argument (args.cursor) when malformed, forged, or from another query
   */
  decode(query: unknown, cursor: string): CursorState;
}

/** Stable JSON of frozen objects whose values are all primitives: they cannot change, and a request's query key is written several times (ranked-pass cache, cursor). */
const frozenJson = new WeakMap<object, string>();

/**
 * JSON with sorted keys and undefined dropped, so equal queries hash equally. The text of a frozen
 * object of primitives is computed once (freeze a query key to share it between the cursor and the
 * ranked-pass cache).
 */
export function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null);
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const kept = Object.isFrozen(v) ? frozenJson.get(v) : undefined;
  if (kept !== undefined) return kept;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const json = `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableJson(x)}`).join(',')}}`;
  if (Object.isFrozen(v) && entries.every(([, x]) => x === null || typeof x !== 'object')) frozenJson.set(v, json);
  return json;
}

/** Create a codec keyed by a server secret (persisted so cursors survive restarts). */
export function createCursorCodec(secret: string): CursorCodec {
  // the key prepared once (a string key is imported again on every createHmac)
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  // the payload and the query are separated by a byte neither holds (base64url has no "\n")
  const sign = (body: string, query: unknown): Buffer =>
    createHmac('sha256', key).update(body).update('\n').update(stableJson(query)).digest().subarray(0, MAC_BYTES);
  const bad = (why: string): ServiceError =>
    new ServiceError(
      'invalid_argument',
      'args.cursor',
      `must be a next_cursor returned by the same query (${why}); omit it to start from the first page`,
    );
  return {
    encode(query, state) {
      const body = Buffer.from(JSON.stringify({ v: VERSION, o: state.offset, s: state.snapshot })).toString('base64url');
      return `${body}.${sign(body, query).toString('base64url')}`;
    },
    decode(query, cursor) {
      const parts = cursor.split('.');
      const [body, mac] = parts;
      if (parts.length !== 2 || !body || !mac) throw bad('malformed');
      const expected = sign(body, query);
      const given = Buffer.from(mac, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw bad('issued for a different query, by another server, or altered');
      }
      let p: { v?: unknown; o?: unknown; s?: unknown };
      try {
        p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof p;
      } catch {
        throw bad('malformed');
      }
      if (p.v !== VERSION) throw bad('unsupported version');
      if (typeof p.o !== 'number' || !Number.isInteger(p.o) || p.o < 0 || typeof p.s !== 'number') throw bad('malformed');
      return { offset: p.o, snapshot: p.s };
    },
  };
}
