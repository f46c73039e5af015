import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';

/**
 * Defence in depth for SVG (issue 36 finding 9): the sandbox CSP of blob responses is the first line; the
 * stored document itself carries no script either (DOMPurify's SVG profile, applied on import), and still
 * renders.
 */
const EVIL = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120" height="80" viewBox="0 0 120 80" onload="alert('onload')">
  <script type="text/javascript">alert('script')</script>
  <script><![CDATA[ alert('cdata') ]]></script>
  <defs>
    <linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient>
    <circle id="dot" r="4" fill="#0a0"/>
  </defs>
  <a xlink:href="javascript:alert('xlink')"><rect width="120" height="80" fill="url(#g)" onclick="alert('onclick')"/></a>
  <a href="javascript:alert('href')"><circle cx="20" cy="20" r="6" fill="#fff"/></a>
  <use href="#dot" x="60" y="40"/>
  <use href="data:image/svg+xml;base64,PHN2Zz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+"/>
  <foreignObject width="100" height="50"><div xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert('img')"/><iframe src="javascript:alert('iframe')"></iframe></div></foreignObject>
  <set attributeName="onmouseover" to="alert('set')"/>
  <text x="5" y="70" font-size="12">Hi&#160;&amp; bye</text>
</svg>`;

describe('SVG import strips scripts', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    await srv.listen();
  });
  afterAll(async () => srv.close());

  it('stores and serves the document without script, event handlers, javascript: URLs or foreignObject; it still renders', async () => {
    const c = await srv.connect();
    const r = await c.call('svc_asset_import', 'import', {
      data: Buffer.from(EVIL).toString('base64'),
      mime_type: 'image/svg+xml',
      filename: 'evil.svg',
    });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({ format: 'svg', width: 120, height: 80 });
    const res = await fetch(r.structured.url as string);
    expect(res.status).toBe(200);
    const served = await res.text();
    for (const bad of [
      /<script/i,
      /\son[a-z]+\s*=/i,
      /javascript:/i,
      /foreignObject/i,
      /<iframe/i,
      /<img/i,
      /data:image\/svg/i,
      /<set\b/i,
      /alert\(/,
    ])
      expect(served).not.toMatch(bad);
    // what is not dangerous stays: shapes, the gradient, a same-document <use>, the text
    expect(served).toMatch(/<linearGradient id="g">/);
    expect(served).toMatch(/<use href="#dot"/);
    expect(served).toContain('Hi&#160;&amp; bye');
    expect(served).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    // the served bytes are what was stored and hashed, and they are a valid SVG
    expect(Buffer.byteLength(served)).toBe(r.structured.size_bytes);
    expect(await sharp(Buffer.from(served)).metadata()).toMatchObject({ format: 'svg', width: 120, height: 80 });
    const thumb = await fetch((r.structured.delivery as { thumbnail_url: string }).thumbnail_url);
    expect(thumb.status).toBe(200);
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).stats()).isOpaque).toBe(true);
  });

  it('adds the SVG namespace a document left out, and refuses a script-only document (nothing left to render)', async () => {
    const c = await srv.connect();
    const bare = await c.call('svc_asset_import', 'import', {
      data: Buffer.from('<svg width="10" height="10"><rect width="10" height="10" fill="#123"/></svg>').toString('base64'),
      mime_type: 'image/svg+xml',
    });
    expect(bare.error).toBeUndefined();
    const text = await (await fetch(bare.structured.url as string)).text();
    expect(text).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#123"></rect></svg>',
    );
    const empty = await c.call('svc_asset_import', 'import', {
      data: Buffer.from('<svg><script>alert(1)</script></svg>').toString('base64'),
      mime_type: 'image/svg+xml',
    });
    expect(empty.error).toMatchObject({ code: 'invalid_argument', field: 'args.data' });
  });
});
