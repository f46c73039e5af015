import express, { type Router } from 'express';
import type { BlobStore } from '../storage/blob-store.ts';
import { CDN_MIME } from '../storage/urls.ts';

/**
 * `GET /cdn/<sha256>.<ext>`: content-addressed asset bytes. Immutable (the URL names the content), so
 * cached for a year; ranges and ETags via `res.sendFile`. SVGs and everything else are served with a
 * sandboxing CSP so a hostile upload cannot script our origin. Only blobs that an asset or rendition
 * references are served: a deleted asset's URL answers 404 at once (its file waits for the blob GC).
 * @param referenced whether any asset/rendition row names the sha256 (an indexed lookup)
 */
export function cdnRouter(blobs: BlobStore, referenced: (sha256: string) => boolean): Router {
  const router = express.Router();
  router.get('/cdn/:file', (req, res) => {
    const m = /^([0-9a-f]{64})\.([a-z0-9]+)$/.exec(req.params.file);
    const mime = m ? CDN_MIME[m[2]!] : undefined;
    const file = m && mime && referenced(m[1]!) ? blobs.filePath(m[1]!) : null;
    if (!m || !mime || !file) {
      res.status(404).type('text/plain').send('not found');
      return;
    }
    res.setHeader('Content-Type', mime);
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.sendFile(file, { headers: { 'Content-Type': mime } });
  });
  return router;
}
