/** Bytes of the sha256 kept in a short content address: 128 bits (collisions need ~2^64 blobs). */
const SHORT_KEY_BYTES = 16;

/**
 * The short content address of a blob: the first 128 bits of its sha256 in base64url (RFC 4648 §5),
 * 22 characters instead of 64 hex. Stable: it depends on the bytes alone.
 * @param sha256Hex the blob's sha256, 64 lower-case hex characters
 */
export function shortKey(sha256Hex: string): string {
  return Buffer.from(sha256Hex.slice(0, SHORT_KEY_BYTES * 2), 'hex').toString('base64url');
}

/** The sha256 hex prefix (32 characters) a short key stands for, or null when it is not one. */
export function prefixOfShortKey(key: string): string | null {
  return /^[A-Za-z0-9_-]{22}$/.test(key) ? Buffer.from(key, 'base64url').toString('hex') : null;
}
