import { pipeline } from 'node:stream/promises';
import express, { type Router } from 'express';
import type { Logger } from '../log.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { CDN_MIME, extensionOf } from '../storage/urls.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * `GET /a/<public key>.<ext>`: asset bytes, from whichever blob store is configured. The public key is a
 * row's `blob_key` (storage/urls.ts, server/db/blob-keys.ts: per tenant, an HMAC of the content hash),
 * looked up to the sha256 the blob is stored under and its format. The sha256-derived forms of before
 * issue 36 (`/a/<first 128 bits of the sha256>`, `/cdn/<sha256>`) answer 404 like any unknown key, so
 * nobody confirms by hashing that bytes are stored. Immutable (a key names fixed bytes), so cached for a year, with the sha256 as strong ETag
 * (`If-None-Match` → 304) and single byte ranges (RFC 9110 §14: 206, or 416 when unsatisfiable).
 * SVGs and everything else are served with a sandboxing CSP so a hostile upload cannot script our
 * origin. Only keys that an asset or rendition row holds are served: a deleted asset's URL answers 404
 * at once unless another asset of the same tenant holds the same bytes (its bytes wait for the blob GC). When the store hands out direct URLs (S3 with
 * ATELIER_S3_DELIVERY=presign) the answer is a 302 to a presigned URL, cacheable for half its lifetime,
 * except for SVG: a bucket's origin would not send the sandbox CSP, so SVGs are always streamed from here.
 * Each blob answers at one URL only: the canonical spelling of its key (case-sensitive, no trailing
 * slash) with the extension of its stored format; any other spelling is 404, so caches hold one copy
 * and no blob is served under another type.
 * @param byKey the sha256 and stored format of the blob a row holding the public key names, null when none does (an indexed lookup)
 * A failing blob store answers 503 (logged), or ends the connection when the body had begun.
 * @param o.presignTtlS lifetime of the store's direct URLs, seconds (caps the redirect's max-age)
 */
export function cdnRouter(
  blobs: BlobStore,
  byKey: (key: string) => Promise<{ sha256: string; format: string } | null>,
  o: { presignTtlS: number; log: Logger },
): Router {
  const presignTtlS = o.presignTtlS;
  const router = express.Router({ caseSensitive: true, strict: true });
  const notFound = (res: express.Response): void => {
    res.status(404).type('text/plain').send('not found');
  };
  const serve = async (
    blob: { sha256: string; format: string } | null,
    ext: string,
    req: express.Request,
    res: express.Response,
  ): Promise<void> => {
    const mime = CDN_MIME[ext];
    if (!mime || !blob || extensionOf(blob.format) !== ext) return notFound(res);
    const sha = blob.sha256;
    const direct = mime === 'image/svg+xml' ? null : await blobs.directUrl(sha, { contentType: mime, cacheControl: IMMUTABLE });
    if (direct) {
      res.setHeader('Cache-Control', `public, max-age=${Math.floor(presignTtlS / 2)}`);
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.redirect(302, direct);
      return;
    }
    const st = await blobs.stat(sha);
    if (!st) return notFound(res);
    res.setHeader('Content-Type', mime);
    res.setHeader('Cache-Control', IMMUTABLE);
    res.setHeader('ETag', `"${sha}"`);
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    const ranges = req.range(st.sizeBytes, { combine: true });
    let range: { start: number; end: number } | undefined;
    if (ranges === -1) {
      res.status(416).setHeader('Content-Range', `bytes */${st.sizeBytes}`).end();
      return;
    }
    // One range is served as 206; several (rare for images) get the whole body, which RFC 9110 allows.
    if (Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1) {
      range = { start: ranges[0]!.start, end: ranges[0]!.end };
      res.status(206).setHeader('Content-Range', `bytes ${range.start}-${range.end}/${st.sizeBytes}`);
    }
    res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : st.sizeBytes));
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const body = await blobs.read(sha, range);
    if (!body) {
      res.removeHeader('Content-Range');
      return notFound(res);
    }
    await pipeline(body, res);
  };
  const guarded = async (key: string, ext: string, req: express.Request, res: express.Response): Promise<void> => {
    let sha: string | null = null;
    try {
      const blob = await byKey(key);
      sha = blob?.sha256 ?? null;
      await serve(blob, ext, req, res);
    } catch (err) {
      // the client went away mid-body: nothing to answer, nothing wrong with the store
      if ((err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
      o.log.error({ err, sha256: sha }, 'cdn: blob store failed');
      if (res.headersSent) res.destroy();
      else res.status(503).setHeader('Cache-Control', 'no-store').type('text/plain').send('blob store unavailable');
    }
  };
  router.get('/a/:file', async (req, res) => {
    const m = /^([A-Za-z0-9_-]{22})\.([a-z0-9]+)$/.exec(req.params.file);
    // base64url of 128 bits leaves 4 bits of the last character unused: only the canonical spelling (the
    // one stored, matched exactly) names a blob
    if (!m || Buffer.from(m[1]!, 'base64url').toString('base64url') !== m[1]) return notFound(res);
    await guarded(m[1], m[2]!, req, res);
  });
  return router;
}
