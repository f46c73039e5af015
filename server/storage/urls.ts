/** File extension used in CDN URLs for a stored format. */
export function extensionOf(format: string): string {
  const f = format.toLowerCase();
  return f === 'jpeg' ? 'jpg' : f === 'svg+xml' ? 'svg' : f;
}

/** MIME type served for a CDN URL extension. */
export const CDN_MIME: Record<string, string> = {
  jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', avif: 'image/avif',
  svg: 'image/svg+xml', tiff: 'image/tiff', mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime',
};

/**
 * Builds permanent CDN URLs: `{cdnUrl}/cdn/<sha256>.<ext>` for content-addressed blobs
 * (immutable, cacheable forever). `base` is resolved lazily because with port 0 it is known only
 * after the listener binds.
 */
export interface UrlBuilder {
  base(): string;
  blob(sha256: string, format: string): string;
  /** The sha256 in a URL of ours, or null for a foreign URL. */
  parse(url: string): { sha256: string; ext: string } | null;
}

export function createUrlBuilder(getBase: () => string): UrlBuilder {
  return {
    base: getBase,
    blob: (sha, format) => `${getBase()}/cdn/${sha}.${extensionOf(format)}`,
    parse(url) {
      const base = getBase();
      if (!url.startsWith(`${base}/cdn/`)) return null;
      const m = /^([0-9a-f]{64})\.([a-z0-9]+)$/.exec(url.slice(base.length + 5).split(/[?#]/)[0] ?? '');
      return m ? { sha256: m[1]!, ext: m[2]! } : null;
    },
  };
}
