/** File extension used in CDN URLs for a stored format. */
export function extensionOf(format: string): string {
  const f = format.toLowerCase();
  return f === 'jpeg' ? 'jpg' : f === 'svg+xml' ? 'svg' : f;
}

/** MIME type served for a CDN URL extension. */
export const CDN_MIME: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  tiff: 'image/tiff',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
};

/** Bytes of the sha256 kept in a short content address: 128 bits (collisions need ~2^64 blobs). */
const SHORT_KEY_BYTES = 16;

/**
 * The short content address of a blob: the first 128 bits of its sha256 in base64url (RFC 4648 §5),
 * 22 characters instead of 64 hex. Stable: it depends on the bytes alone.
 */
export function shortKey(sha256Hex: string): string {
  return Buffer.from(sha256Hex.slice(0, SHORT_KEY_BYTES * 2), 'hex').toString('base64url');
}

/** The sha256 hex prefix (32 characters) a short key stands for, or null when it is not one. */
export function prefixOfShortKey(key: string): string | null {
  return /^[A-Za-z0-9_-]{22}$/.test(key) ? Buffer.from(key, 'base64url').toString('hex') : null;
}

/**
 * Builds permanent CDN URLs: `{cdnUrl}/a/<short key>.<ext>` (short content address, immutable,
 * cacheable forever; about 45 bytes shorter than the full-hash form, which matters 3× per asset in every
 * search result). URLs of the older form `{cdnUrl}/cdn/<sha256>.<ext>` keep working. `base` is resolved
 * lazily because with port 0 it is known only after the listener binds.
 */
export interface UrlBuilder {
  base(): string;
  blob(sha256: string, format: string): string;
  /**
   * A URL of ours: the sha256 hex it names (the full hash for `/cdn/`, a 32-character prefix for `/a/`,
   * resolved with `AssetQueries.resolveBlob`), or null for a foreign URL.
   */
  parse(url: string): { sha256Prefix: string; ext: string } | null;
}

export function createUrlBuilder(getBase: () => string): UrlBuilder {
  return {
    base: getBase,
    blob: (sha, format) => `${getBase()}/a/${shortKey(sha)}.${extensionOf(format)}`,
    parse(url) {
      const base = getBase();
      if (!url.startsWith(`${base}/`)) return null;
      const rest = url.slice(base.length).split(/[?#]/)[0] ?? '';
      const full = /^\/cdn\/([0-9a-f]{64})\.([a-z0-9]+)$/.exec(rest);
      if (full) return { sha256Prefix: full[1]!, ext: full[2]! };
      const short = /^\/a\/([A-Za-z0-9_-]{22})\.([a-z0-9]+)$/.exec(rest);
      const prefix = short ? prefixOfShortKey(short[1]!) : null;
      return prefix ? { sha256Prefix: prefix, ext: short![2]! } : null;
    },
  };
}
