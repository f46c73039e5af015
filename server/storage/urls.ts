import { prefixOfShortKey, shortKey } from '../domain/content-address.ts';

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

/**
 * Builds permanent CDN URLs: `{cdnUrl}/a/<short key>.<ext>` (short content address, immutable,
 * cacheable forever; about 45 bytes shorter than the full-hash form, which matters 3× per asset in every
 * search result). URLs of the older form `{cdnUrl}/cdn/<sha256>.<ext>` keep working. `base` is resolved
 * lazily because with port 0 it is known only after the listener binds.
 */
export interface UrlBuilder {
  base(): string;
  /** The URL of the blob whose sha256 (64 hex characters) is given. */
  blob(sha256: string, format: string): string;
  /** The URL of the blob whose short content address (`shortKey`, 22 characters) is given. */
  keyed(key: string, format: string): string;
  /**
   * A URL of ours: the sha256 hex it names (the full hash for `/cdn/`, a 32-character prefix for `/a/`,
   * resolved with `AssetQueries.resolveBlob`), or null for a foreign URL.
   */
  parse(url: string): { sha256Prefix: string; ext: string } | null;
}

export function createUrlBuilder(getBase: () => string): UrlBuilder {
  const keyed = (key: string, format: string): string => `${getBase()}/a/${key}.${extensionOf(format)}`;
  return {
    base: getBase,
    blob: (sha, format) => keyed(shortKey(sha), format),
    keyed,
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
