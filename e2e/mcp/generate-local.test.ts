import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../server/tenancy/admin.ts';
import { demoFile, startTestServer, type TestClient, type TestServer } from './harness.ts';

/** Bytes behind one of our CDN URLs, read from the blob store. */
async function cdnBytes(srv: TestServer, url: string): Promise<Buffer> {
  const p = srv.app.library.urls.parse(url);
  if (!p) throw new Error(`not a CDN URL: ${url}`);
  const sha = await srv.app.library.assets.resolveBlob(p.sha256Prefix);
  if (!sha) throw new Error(`no blob behind ${url}`);
  return srv.app.library.blobs.get(sha);
}

async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * 4;
  return [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
}

const near = (a: number[], b: number[], tol = 24): boolean => a.slice(0, 3).every((v, i) => Math.abs(v - b[i]!) <= tol);

async function importPng(c: TestClient, png: Buffer, filename: string): Promise<{ asset_id: string; url: string }> {
  const r = await c.call('svc_asset_import', 'import', { data: png.toString('base64'), mime_type: 'image/png', filename });
  if (r.isError) throw new Error(JSON.stringify(r.error));
  return r.structured as { asset_id: string; url: string };
}

describe('svc_drafts asset_generate with the local provider', () => {
  let srv: TestServer;
  let c: TestClient;
  beforeAll(async () => {
    srv = await startTestServer({ env: { ATELIER_ENRICHMENT: '0' } });
    c = await srv.connect();
  });
  afterAll(async () => srv.close());

  it('capabilities mark local as the default; the tool description carries the budget and quality guidance', async () => {
    const caps = (await c.call('svc_assets', 'capabilities', {})).structured.capabilities as {
      provider: string;
      default: boolean;
      credits: number;
    }[];
    expect(caps[0]).toMatchObject({ provider: 'local', default: true, credits: 0 });
    const tools = await c.client.listTools();
    const drafts = tools.tools.find((t) => t.name === 'svc_drafts')!;
    expect(drafts.description).toContain('product page 1 high + 1-2 medium');
    expect(drafts.description).toContain('homepage 1 high + 1 medium');
    expect(drafts.description).toContain('low for textures, patterns and decorative elements');
    expect(drafts.description).toContain('svc_assets capabilities');
  });

  it('svc_discover resolves former names to asset_generate and publishes its schema with the spec defaults', async () => {
    const r = await c.call('svc_discover', 'discover', { query: 'generate_image' });
    const first = (
      r.structured.actions as {
        router: string;
        action: string;
        args_schema: { properties: Record<string, { default?: unknown }>; required: string[] };
      }[]
    )[0]!;
    expect(first).toMatchObject({ router: 'svc_drafts', action: 'asset_generate' });
    expect(first.args_schema.required).toEqual(expect.arrayContaining(['prompt', 'style', 'purpose']));
    expect(first.args_schema.properties.aspect!.default).toBe('landscape');
    expect(first.args_schema.properties.quality!.default).toBe('medium');
    expect(first.args_schema.properties.transparent!.default).toBe(false);
  });

  it('generates a brand-colour gradient at the requested ratio and size, stored in the library and searchable', async () => {
    const r = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'calm horizontal gradient for the summer hero',
      style: 'abstract',
      purpose: 'hero_bg',
      brand_colors: ['#1f3a5f', '#f4efe6'],
    });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({
      kind: 'image',
      width: 1024,
      height: 576,
      format: 'jpeg',
      provider: 'local',
      model: 'atelier-compositor-1',
      operation: 'generate',
      aspect_ratio: '16:9',
      image_size: '1K',
      credit_cost: 0,
      credits_charged: 0,
      remaining_credits: null,
      has_alpha: false,
    });
    expect(r.text).toContain(r.structured.url as string);
    const bytes = await cdnBytes(srv, r.structured.url as string);
    // horizontal gradient: left edge is the first brand colour, right edge the second
    expect(near(await pixel(bytes, 2, 288), [0x1f, 0x3a, 0x5f])).toBe(true);
    expect(near(await pixel(bytes, 1021, 288), [0xf4, 0xef, 0xe6])).toBe(true);
    const found = await c.call('svc_asset_library', 'search', {
      theme_id: srv.tenant.theme_id,
      query: 'summer hero gradient',
      mode: 'all',
    });
    expect((found.structured.assets as { id: string; tags: string[] }[]).map((a) => a.id)).toContain(r.structured.asset_id);
    const hit = (found.structured.assets as { id: string; tags: string[]; category: string }[]).find(
      (a) => a.id === r.structured.asset_id,
    )!;
    expect(hit.tags).toEqual(expect.arrayContaining(['generated', 'abstract', 'hero_bg', 'local']));
    expect(hit.category).toBe('background');
    const row = (await srv.app.library.assets.byId(
      { tenantId: srv.tenant.tenant_id, workspaceId: srv.tenant.workspace_id },
      r.structured.asset_id as string,
    ))!;
    expect(row.source).toBe('generated');
    expect(JSON.parse(row.provenance!)).toMatchObject({
      prompt: 'calm horizontal gradient for the summer hero',
      style: 'abstract',
      purpose: 'hero_bg',
      provider: 'local',
      model: 'atelier-compositor-1',
    });
  });

  it('honours aspect, aspect_ratio, image_size and output_format', async () => {
    const portrait = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'polka dots',
      style: 'illustration',
      purpose: 'pattern_tile',
      aspect: 'portrait',
      image_size: '512px',
      output_format: 'webp',
      quality: 'low',
    });
    expect(portrait.structured).toMatchObject({ width: 288, height: 512, format: 'webp', aspect_ratio: '9:16' });
    const wide = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'terrazzo stone',
      style: 'texture',
      purpose: 'texture_fill',
      aspect_ratio: '21:9',
      image_size: '2K',
      output_format: 'jpeg',
    });
    expect(wide.structured).toMatchObject({ width: 2048, height: 880, format: 'jpeg', aspect_ratio: '21:9', image_size: '2K' });
    const hero = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'mesh gradient',
      style: 'abstract',
      purpose: 'hero_bg',
      aspect: 'square',
      quality: 'high',
    });
    expect(hero.structured).toMatchObject({ width: 2048, height: 2048, image_size: '2K', aspect_ratio: '1:1' });
  });

  it('transparent: true yields a PNG whose alpha channel is verified on the output', async () => {
    const r = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'scattered organic shapes',
      style: 'illustration',
      purpose: 'decorative_element',
      transparent: true,
      aspect: 'square',
      image_size: '512px',
      brand_colors: ['#c46a4a', '#9caf88'],
    });
    expect(r.structured).toMatchObject({ format: 'png', transparent_requested: true, has_alpha: true });
    expect(r.text).toContain('Transparency verified');
    const stats = await sharp(await cdnBytes(srv, r.structured.url as string)).stats();
    expect(stats.isOpaque).toBe(false);
    expect(stats.channels[3]!.min).toBe(0);
  });

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

  it('validates against the capability entry before any work, naming the field and the allowed values', async () => {
    const bad = async (args: Record<string, unknown>) =>
      (await c.call('svc_drafts', 'asset_generate', { prompt: 'x', style: 'abstract', purpose: 'hero_bg', ...args })).error!;
    expect(await bad({ provider: 'dalle' })).toMatchObject({
      code: 'invalid_argument',
      field: 'args.provider',
      details: { allowed: ['local'] },
    });
    expect(await bad({ model: 'sdxl' })).toMatchObject({
      code: 'invalid_argument',
      field: 'args.model',
      details: { allowed: ['atelier-compositor-1'] },
    });
    const ratio = await bad({ aspect_ratio: '5:1' });
    expect(ratio).toMatchObject({ code: 'invalid_argument', field: 'args.aspect_ratio' });
    expect(ratio.message).toContain('1:1, 4:3, 3:4, 3:2, 2:3, 16:9, 9:16, 21:9');
    expect(await bad({ image_size: '8K' })).toMatchObject({ field: 'args.image_size', details: { allowed: ['512px', '1K', '2K', '4K'] } });
    expect(await bad({ output_format: 'gif' })).toMatchObject({
      field: 'args.output_format',
      details: { allowed: ['png', 'jpeg', 'webp'] },
    });
    expect(await bad({ transparent: true, output_format: 'jpeg' })).toMatchObject({
      field: 'args.output_format',
      details: { allowed: ['png', 'webp'] },
    });
    expect(await bad({ style: 'watercolor' })).toMatchObject({ field: 'args.style' });
    expect(await bad({ reference_images: Array.from({ length: 17 }, (_, i) => `https://example.com/${i}.png`) })).toMatchObject({
      field: 'args.reference_images',
    });
    expect(await bad({ reference_images: [] })).toMatchObject({ field: 'args.reference_images' });
  });

  it('rule 4: mask_url without reference_images is invalid', async () => {
    const r = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'x',
      style: 'abstract',
      purpose: 'hero_bg',
      mask_url: 'https://example.com/mask.png',
    });
    expect(r.error).toMatchObject({ code: 'invalid_argument', field: 'args.mask_url' });
    expect(r.error!.message).toContain('rule 4');
  });

  it("reference images: another workspace's CDN URL is not_found; external URLs are fetched like imports", async () => {
    const other = await createTenant(srv.app.library.tenancy, 'Other tenant');
    const oc = await srv.connect(other.api_key);
    const foreign = await importPng(
      oc,
      await sharp({ create: { width: 64, height: 64, channels: 3, background: '#00ff00' } })
        .png()
        .toBuffer(),
      'green.png',
    );
    const r = await c.call('svc_drafts', 'asset_generate', {
      prompt: 'center',
      style: 'photography',
      purpose: 'product_composite',
      reference_images: [foreign.url],
    });
    expect(r.error).toMatchObject({ code: 'not_found', field: 'args.reference_images[0]' });

    const png = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#2e86de' } })
      .png()
      .toBuffer();
    const server = http.createServer((req, res) => {
      if (req.url === '/product.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(png);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ok = await c.call('svc_drafts', 'asset_generate', {
        prompt: 'product centered, large',
        style: 'photography',
        purpose: 'product_composite',
        reference_images: [`${base}/product.png`],
        brand_colors: ['#ffffff'],
        output_format: 'png',
      });
      expect(ok.error).toBeUndefined();
      expect(near(await pixel(await cdnBytes(srv, ok.structured.url as string), 512, 288), [0x2e, 0x86, 0xde])).toBe(true);
      const missing = await c.call('svc_drafts', 'asset_generate', {
        prompt: 'x',
        style: 'photography',
        purpose: 'product_composite',
        reference_images: [`${base}/product.png`, `${base}/nope.png`],
      });
      expect(missing.error).toMatchObject({ code: 'invalid_argument', field: 'args.reference_images[1]' });
    } finally {
      server.close();
    }
  });

  it('sends MCP progress notifications when the client gave a progress token', async () => {
    const messages: string[] = [];
    const r = await c.client.callTool(
      {
        name: 'svc_drafts',
        arguments: {
          action: 'asset_generate',
          args: { prompt: 'diagonal stripes', style: 'illustration', purpose: 'pattern_tile', image_size: '512px' },
        },
      },
      undefined,
      { onprogress: (p) => messages.push(`${p.progress}:${p.message}`) },
    );
    expect(r.isError).toBeFalsy();
    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(messages.at(-1)).toMatch(/:done$/);
    expect(messages.some((m) => m.includes('rendering the procedural image'))).toBe(true);
    const steps = messages.map((m) => Number(m.split(':')[0]));
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
  });
});
