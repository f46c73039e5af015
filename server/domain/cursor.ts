import { createHmac, createSecretKey, hash, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../errors.ts';

/**
 * Opaque, versioned, tamper-evident page cursors bound to the query that made them.
 * Wire form: base64url(JSON payload) "." base64url(HMAC-SHA256(secret, payload)) (RFC 2104).
 * The payload holds the version, a digest of the normalised query (so a cursor from another query,
 * workspace or tenant is rejected), the offset, and a snapshot bound (`s`, max row id at page 1)
 * so rows inserted while paging do not shift later pages.
 */
export interface CursorState {
  offset: number;
  snapshot: number;
}

const VERSION = 1;

export interface CursorCodec {
  /** Encode the position after a page. */
  encode(query: unknown, state: CursorState): string;
  /**
   * Decode a cursor for `query`.
   * @throws ServiceError invalid_argument (args.cursor) when malformed, forged, or from another query
   */
  decode(query: unknown, cursor: string): CursorState;
}

/** Digests of recent queries by their stable JSON (a search pages and re-asks the same few queries). */
const digests = new Map<string, string>();
const DIGESTS_KEPT = 1024;
function digest(query: unknown): string {
  const json = stableJson(query);
  let d = digests.get(json);
  if (d === undefined) {
    // the one-shot digest: about a quarter of createHash's cost for a short input (no Hash object)
    d = hash('sha256', json, 'base64url').slice(0, 22);
    if (digests.size >= DIGESTS_KEPT) digests.clear();
    digests.set(json, d);
  }
  return d;
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
  const sign = (body: string): Buffer => createHmac('sha256', key).update(body).digest();
  const bad = (why: string): ServiceError =>
    new ServiceError(
      'invalid_argument',
      'args.cursor',
      `must be a next_cursor returned by the same query (${why}); omit it to start from the first page`,
    );
  return {
    encode(query, state) {
      const body = Buffer.from(JSON.stringify({ v: VERSION, q: digest(query), o: state.offset, s: state.snapshot })).toString('base64url');
      return `${body}.${sign(body).toString('base64url')}`;
    },
    decode(query, cursor) {
      const [body, mac] = cursor.split('.');
      if (!body || !mac) throw bad('malformed');
      const expected = sign(body);
      const given = Buffer.from(mac, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad('signature mismatch');
      let p: { v?: unknown; q?: unknown; o?: unknown; s?: unknown };
      try {
        p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof p;
      } catch {
        throw bad('malformed');
      }
      if (p.v !== VERSION) throw bad('unsupported version');
      if (p.q !== digest(query)) throw bad('issued for a different query');
      if (typeof p.o !== 'number' || !Number.isInteger(p.o) || p.o < 0 || typeof p.s !== 'number') throw bad('malformed');
      return { offset: p.o, snapshot: p.s };
    },
  };
}
