import express, { type Router } from 'express';
import type { BlobStore } from '../storage/blob-store.ts';
import { CDN_MIME } from '../storage/urls.ts';

/**
 * `GET /cdn/<sha256>.<ext>`: content-addressed asset bytes. Immutable (the URL names the content), so
 * cached for a year; ranges and ETags via `res.sendFile`. SVGs and everything else are served with a
 * sandboxing CSP so a hostile upload cannot script our origin.
 */
export function cdnRouter(blobs: BlobStore): Router {
  const router = express.Router();
  router.get('/cdn/:file', (req, res) => {
    const m = /^([0-9a-f]{64})\.([a-z0-9]+)$/.exec(req.params.file);
    const mime = m ? CDN_MIME[m[2]!] : undefined;
    const file = m && mime ? blobs.filePath(m[1]!) : null;
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
