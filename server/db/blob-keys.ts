import { createHmac, randomBytes } from 'node:crypto';

/** Bytes of the HMAC kept in a public blob key: 128 bits (22 base64url characters, as the old short key). */
const PUBLIC_KEY_BYTES = 16;

/**
 * A new per-tenant blob key secret: 32 bytes from `crypto.randomBytes`, as 64 hex characters. Stored
 * server-side only (`tenants.blob_secret`, SQLite migration 0062 / PostgreSQL 0020), never shown.
 */
export function newBlobSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * The public key of a blob for one tenant (issue 36 finding 3): the first 128 bits of
 * HMAC-SHA256(tenant secret, sha256 hex) in base64url (RFC 4648 §5), 22 characters. The same bytes get
 * one key within a tenant (its identical assets share a URL) and unrelated keys across tenants, so a
 * key tells nothing about the content nor about another tenant's library; storage stays keyed by the
 * sha256 (content-addressed, deduplicated across tenants).
 * @param secretHex the tenant's `blob_secret` (64 hex characters)
 * @param sha256Hex the blob's sha256, 64 lower-case hex characters
 */
export function publicBlobKey(secretHex: string, sha256Hex: string): string {
  return createHmac('sha256', Buffer.from(secretHex, 'hex')).update(sha256Hex).digest().subarray(0, PUBLIC_KEY_BYTES).toString('base64url');
}
