/**
 * The `s3://bucket[/prefix]` form of ATELIER_BLOB_STORE, apart from the S3 client so that reading the
 * configuration does not load the AWS SDK.
 */

/** Parse `s3://bucket[/prefix]` into the bucket and a prefix that is empty or ends in `/`; null when malformed. */
export function parseS3Url(url: string): { bucket: string; prefix: string } | null {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) return null;
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (/\/\/|(^|\/)\.\.?(\/|$)/.test(prefix)) return null;
  return { bucket: m[1]!, prefix: prefix ? `${prefix}/` : '' };
}
