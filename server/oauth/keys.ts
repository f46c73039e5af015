import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { OAuthStore } from '../db/ports/oauth-store.ts';

/** Signing-key row of `oauth_state`: model `SigningKeys`, id `jwks`, payload `{keys: JWK[]}` (private JWKs, newest first). */
const KEYS = ['SigningKeys', 'jwks'] as const;
/** Cookie-signing secrets of the authorization server: model `CookieKeys`, id `keys`, payload `{keys: string[]}`. */
const COOKIES = ['CookieKeys', 'keys'] as const;
/** Keys kept after a rotation besides the new one, so tokens signed before it still verify until they expire. */
const KEEP_PREVIOUS = 2;

/** A new ES256 signing key as a private JWK with `kid`, `alg` and `use`. */
async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'ES256', use: 'sig' };
}

/**
 * The authorization server's signing keys (private JWKs, the signing one first), generated and stored
 * on first start. Processes starting at once on an empty database each offer a key; the first stored
 * wins and every process signs with what is stored.
 * @throws Error when the stored row holds no keys after the insert (it was deleted in between)
 */
export async function signingKeys(store: OAuthStore): Promise<JWK[]> {
  return stored(store, KEYS, async () => [await newSigningKey()]);
}

/** The `keys` of a never-expiring row, inserted from `fresh()` when absent (first writer wins, then read back). */
async function stored<T>(store: OAuthStore, [model, id]: readonly [string, string], fresh: () => Promise<T[]>): Promise<T[]> {
  const read = async (): Promise<T[] | undefined> => {
    const keys = (await store.find(model, id))?.payload.keys as T[] | undefined;
    return keys?.length ? keys : undefined;
  };
  const have = await read();
  if (have) return have;
  await store.insertIfAbsent(model, id, { keys: await fresh() });
  const keys = await read();
  if (!keys) throw new Error(`oauth_state ${model}/${id} holds no keys`);
  return keys;
}

/**
 * Put a new signing key first, keeping the previous `KEEP_PREVIOUS` for verification (`atelier auth
 * rotate-keys`). Servers sign with the new key after their next start.
 * @returns the kids, newest first
 */
export async function rotateSigningKeys(store: OAuthStore): Promise<string[]> {
  const keys = [await newSigningKey(), ...(await signingKeys(store)).slice(0, KEEP_PREVIOUS)];
  await store.upsert(...KEYS, { keys }, { expiresAt: null });
  return keys.map((k) => k.kid!);
}

/** The public half of private JWKs (what `/oauth/jwks` publishes and the resource server verifies with). */
export function publicKeys(keys: JWK[]): JWK[] {
  return keys.map(({ d: _d, ...pub }) => pub);
}

/** Cookie-signing secrets (random, stored on first start; first writer wins as for `signingKeys`). */
export async function cookieKeys(store: OAuthStore): Promise<string[]> {
  return stored(store, COOKIES, async () => [randomBytes(32).toString('base64url')]);
}
