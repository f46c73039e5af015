import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cdnBytes, importPng, near, pixel } from './generate-images.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

describe('svc_drafts asset_generate edits with the local provider (mask, composite, references)', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
  });
  afterAll(async () => srv.close());

  it('mask edit changes only the masked region (white = edit; transparent = edit)', async () => {
    const base = await importPng(
      c,
      await sharp(demoFile('images/nature/silver_fir.jpg')).resize(400, 300, { fit: 'fill' }).png().toBuffer(),
      'fir.png',
    );
    const whiteRight = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#000000' } })
      .composite([{ input: { create: { width: 200, height: 300, channels: 3, background: '#ffffff' } }, left: 200, top: 0 }])
      .png()
      .toBuffer();
    const mask = await importPng(c, whiteRight, 'mask-right.png');
    const r = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'fill the masked area with a plain colour',
      style: 'photography',
      purpose: 'product_lifestyle',
      reference_images: [base.url],
      mask_url: mask.url,
      output_format: 'png',
      brand_colors: ['#d4af37'],
    });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({ width: 400, height: 300, operation: 'edit' });
    const out = await cdnBytes(srv, r.structured.url as string);
    const orig = await cdnBytes(srv, base.url);
    expect(await pixel(out, 50, 150)).toEqual(await pixel(orig, 50, 150));
    expect(await pixel(out, 150, 20)).toEqual(await pixel(orig, 150, 20));
    expect(near(await pixel(out, 300, 150), [0xd4, 0xaf, 0x37])).toBe(true);

    // A mask with transparency: its transparent pixels mark the edit area; "remove" makes them transparent.
    const rgba = Buffer.alloc(400 * 300 * 4);
    for (let y = 0; y < 300; y++) for (let x = 0; x < 400; x++) rgba[(y * 400 + x) * 4 + 3] = x < 100 && y < 100 ? 0 : 255;
    const holeMask = await sharp(rgba, { raw: { width: 400, height: 300, channels: 4 } })
      .png()
      .toBuffer();
    const hole = await importPng(c, holeMask, 'mask-hole.png');
    const cut = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'remove the top left corner',
      style: 'photography',
      purpose: 'decorative_element',
      reference_images: [base.url],
      mask_url: hole.url,
      transparent: true,
    });
    expect(cut.structured).toMatchObject({ format: 'png', has_alpha: true });
    const cutBytes = await cdnBytes(srv, cut.structured.url as string);
    expect((await pixel(cutBytes, 20, 20))[3]).toBe(0);
    expect((await pixel(cutBytes, 300, 200))[3]).toBe(255);
  });

  it('two-step composite: background first, then product + background; the product keeps its alpha', async () => {
    const bg = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'plain backdrop',
      style: 'photography',
      purpose: 'section_bg',
      brand_colors: ['#f4efe6'],
    });
    expect(bg.error).toBeUndefined();
    // product cut-out: a red disc on a transparent square
    const product = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="400"><circle cx="200" cy="200" r="150" fill="#c0392b"/></svg>',
      ),
    )
      .png()
      .toBuffer();
    const prod = await importPng(c, product, 'red-disc.png');
    const r = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'place the product on the left at 50% scale',
      style: 'photography',
      purpose: 'product_composite',
      reference_images: [prod.url, bg.structured.url],
      output_format: 'png',
    });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({ width: 1024, height: 576, operation: 'edit', credits_charged: 0 });
    expect(r.structured.notes).toEqual(expect.arrayContaining([expect.stringContaining('subject 1: left 50%')]));
    const out = await cdnBytes(srv, r.structured.url as string);
    const box = { size: 288, left: Math.round(0.06 * 1024), top: Math.round((576 - 288) / 2) };
    // centre of the disc is red; the transparent corner of the product square shows the background
    expect(near(await pixel(out, box.left + 144, box.top + 144), [0xc0, 0x39, 0x2b])).toBe(true);
    expect(near(await pixel(out, box.left + 4, box.top + 4), [0xf4, 0xef, 0xe6])).toBe(true);
    expect(near(await pixel(out, 900, 288), [0xf4, 0xef, 0xe6])).toBe(true);
  });

  it('one reference without a mask: subject on a procedural background, or a tinted style transfer', async () => {
    const photo = (
      await c.call('svc_asset_import', 'import', {
        data: demoFile('images/nature/prairie_falcon.jpg').toString('base64'),
        mime_type: 'image/jpeg',
        filename: 'falcon.jpg',
      })
    ).structured.url as string;
    const onBg = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'photo centered, small, on a sage gradient',
      style: 'lifestyle',
      purpose: 'product_composite',
      reference_images: [photo],
      image_size: '512px',
    });
    expect(onBg.structured.notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^background: procedural linear in #9caf88/),
        expect.stringContaining('subject 1: center small'),
      ]),
    );
    const tinted = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'duotone in the brand colour',
      style: 'editorial',
      purpose: 'section_bg',
      reference_images: [photo],
      brand_colors: ['#1f3a5f'],
      image_size: '512px',
      output_format: 'png',
    });
    expect(tinted.structured.notes).toEqual(
      expect.arrayContaining([expect.stringContaining('style transfer: reference 1 cover-cropped and tinted #1f3a5f')]),
    );
    const stats = await sharp(await cdnBytes(srv, tinted.structured.url as string)).stats();
    // tinted towards navy: blue channel mean above red channel mean
    expect(stats.channels[2]!.mean).toBeGreaterThan(stats.channels[0]!.mean);
  });
});
