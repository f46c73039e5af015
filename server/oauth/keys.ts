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
 * on first start. Two processes starting at once may each generate one; the last write wins and the
 * other adopts it on its next start (tokens it signed meanwhile fail verification and are re-issued).
 */
export async function signingKeys(store: OAuthStore): Promise<JWK[]> {
  const row = await store.find(...KEYS);
  const keys = row?.payload.keys as JWK[] | undefined;
  if (keys?.length) return keys;
  const fresh = [await newSigningKey()];
  await store.upsert(...KEYS, { keys: fresh }, { expiresAt: null });
  return fresh;
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

/** Cookie-signing secrets (random, stored on first start). */
export async function cookieKeys(store: OAuthStore): Promise<string[]> {
  const row = await store.find(...COOKIES);
  const keys = row?.payload.keys as string[] | undefined;
  if (keys?.length) return keys;
  const fresh = [randomBytes(32).toString('base64url')];
  await store.upsert(...COOKIES, { keys: fresh }, { expiresAt: null });
  return fresh;
}
