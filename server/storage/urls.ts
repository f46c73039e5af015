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
 * Builds permanent CDN URLs: `{cdnUrl}/a/<public key>.<ext>`, the public key being the blob's
 * `blob_key` in the tenant's rows (22 characters, server/db/blob-keys.ts: an HMAC of the content hash
 * under the tenant's secret, so a URL reveals nothing about the bytes nor about other tenants).
 * Immutable and cacheable forever. The sha256-derived forms of before issue 36 (`/a/<sha prefix>` and
 * `/cdn/<sha256>`) no longer answer. `base` is resolved lazily because with port 0 it is known only
 * after the listener binds.
 */
export interface UrlBuilder {
  base(): string;
  /** The URL of the blob whose public key (`blob_key` of an asset or rendition row) is given. */
  keyed(key: string, format: string): string;
  /** A URL of ours: the public key and extension it names (look it up with `AssetStore.blobByKey`), or null for a foreign URL. */
  parse(url: string): { key: string; ext: string } | null;
}

export function createUrlBuilder(getBase: () => string): UrlBuilder {
  return {
    base: getBase,
    keyed: (key, format) => `${getBase()}/a/${key}.${extensionOf(format)}`,
    parse(url) {
      const base = getBase();
      if (!url.startsWith(`${base}/`)) return null;
      const rest = url.slice(base.length).split(/[?#]/)[0] ?? '';
      const m = /^\/a\/([A-Za-z0-9_-]{22})\.([a-z0-9]+)$/.exec(rest);
      return m ? { key: m[1]!, ext: m[2]! } : null;
    },
  };
}
