import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../server/tenancy/admin.ts';
import { cdnBytes, importPng, near, pixel } from './generate-images.ts';
import { startTestServer, type TestClient, type TestServer } from './harness.ts';

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
    expect(row.provenance).toMatchObject({
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
