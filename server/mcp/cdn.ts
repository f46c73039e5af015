import express, { type Router } from 'express';
import type { BlobStore } from '../storage/blob-store.ts';
import { CDN_MIME, prefixOfShortKey } from '../storage/urls.ts';

/**
 * `GET /a/<short key>.<ext>` (storage/urls.ts: the first 128 bits of the sha256, base64url) and the older
 * `GET /cdn/<sha256>.<ext>`: content-addressed asset bytes. Immutable (the URL names the content), so
 * cached for a year; ranges and ETags via `res.sendFile`. SVGs and everything else are served with a
 * sandboxing CSP so a hostile upload cannot script our origin. Only blobs that an asset or rendition
 * references are served: a deleted asset's URL answers 404 at once (its file waits for the blob GC).
 * @param referenced whether any asset/rendition row names the sha256 (an indexed lookup)
 */
export function cdnRouter(blobs: BlobStore, referenced: (sha256: string) => boolean, resolve: (sha256Prefix: string) => string | null): Router {
  const router = express.Router();
  const serve = (sha: string | null, ext: string | undefined, res: express.Response): void => {
    const mime = ext ? CDN_MIME[ext] : undefined;
    const file = sha && mime && referenced(sha) ? blobs.filePath(sha) : null;
    if (!mime || !file) {
      res.status(404).type('text/plain').send('not found');
      return;
    }
    res.setHeader('Content-Type', mime);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.sendFile(file, { headers: { 'Content-Type': mime } });
  };
  router.get('/cdn/:file', (req, res) => {
    const m = /^([0-9a-f]{64})\.([a-z0-9]+)$/.exec(req.params.file);
    serve(m ? m[1]! : null, m?.[2], res);
  });
  router.get('/a/:file', (req, res) => {
    const m = /^([A-Za-z0-9_-]{22})\.([a-z0-9]+)$/.exec(req.params.file);
    const prefix = m ? prefixOfShortKey(m[1]!) : null;
    serve(prefix ? resolve(prefix) : null, m?.[2], res);
  });
  return router;
}
