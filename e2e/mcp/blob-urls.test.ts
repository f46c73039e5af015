import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobShaOf, demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#2a7"/></svg>');

/** The 16 spellings of a 22-character base64url key that decode to the same 128 bits (the last character's low 4 bits are unused). */
function sameBitsSpellings(key: string): string[] {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const hi = alphabet.indexOf(key.at(-1)!) & 0b110000;
  return Array.from({ length: 16 }, (_, lo) => key.slice(0, -1) + alphabet[hi | lo]).filter((k) => k !== key);
}

/** Issue 36 finding 8 (one URL per blob) and 9 (SVG never leaves without its sandbox). */
describe('blob URLs are strict', () => {
  let srv: TestServer;
  let c: TestClient;
  let base: string;
  let jpgUrl: string;
  let svgUrl: string;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    base = (await srv.listen()).url;
    c = await srv.connect();
    const jpg = await c.call('svc_asset_import', 'import', {
      data: demoFile('images/nature/notocactus_minimus.jpg').toString('base64'),
      mime_type: 'image/jpeg',
      filename: 'cactus.jpg',
    });
    expect(jpg.error).toBeUndefined();
    jpgUrl = jpg.structured.url as string;
    const svg = await c.call('svc_asset_import', 'import', { data: SVG.toString('base64'), mime_type: 'image/svg+xml', filename: 'r.svg' });
    expect(svg.error).toBeUndefined();
    svgUrl = svg.structured.url as string;
  });
  afterAll(async () => srv.close());

  it('serves a blob at its canonical URL only: no other key spelling, case, extension or trailing slash', async () => {
    expect(jpgUrl).toMatch(/\/a\/[A-Za-z0-9_-]{22}\.jpg$/);
    expect((await fetch(jpgUrl)).status).toBe(200);
    const { pathname } = new URL(jpgUrl);
    const key = /\/a\/([^.]+)\./.exec(pathname)![1]!;
    const variants = [
      ...sameBitsSpellings(key).map((k) => `${base}/a/${k}.jpg`),
      `${base}/A/${key}.jpg`,
      `${base}/a/${key}.JPG`,
      `${base}/a/${key}.jpg/`,
      `${base}/a/${key}.svg`,
      `${base}/a/${key}.png`,
    ];
    expect(variants).toHaveLength(20);
    const answers = await Promise.all(variants.map(async (u) => ({ u, status: (await fetch(u, { redirect: 'manual' })).status })));
    expect(answers.filter((a) => a.status !== 404)).toEqual([]);
    // the sha256-derived forms of before issue 36 answer nothing (the public key is per tenant)
    const sha = await blobShaOf(srv, jpgUrl);
    expect((await fetch(`${base}/cdn/${sha}.jpg`)).status).toBe(404);
    expect((await fetch(`${base}/a/${Buffer.from(sha.slice(0, 32), 'hex').toString('base64url')}.jpg`)).status).toBe(404);
  });

  it('streams an SVG with its sandbox CSP even when the store hands out presigned URLs; other types redirect', async () => {
    const blobs = srv.app.library.blobs;
    const original = blobs.directUrl.bind(blobs);
    // what an S3 store with ATELIER_S3_DELIVERY=presign answers (a URL on the bucket's origin)
    blobs.directUrl = async (sha) => `https://bucket.example/blobs/${sha}?X-Amz-Signature=x`;
    try {
      const jpg = await fetch(jpgUrl, { redirect: 'manual' });
      expect(jpg.status).toBe(302);
      expect(jpg.headers.get('location')).toMatch(/^https:\/\/bucket\.example\//);
      const svg = await fetch(svgUrl, { redirect: 'manual' });
      expect(svg.status).toBe(200);
      expect(svg.headers.get('content-type')).toBe('image/svg+xml');
      expect(svg.headers.get('content-security-policy')).toContain('sandbox');
      expect(Buffer.from(await svg.arrayBuffer()).toString('utf8')).toContain('<rect');
    } finally {
      blobs.directUrl = original;
    }
  });
});
