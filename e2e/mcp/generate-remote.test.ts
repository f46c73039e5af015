import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreditStore } from '../../server/db/ports/credit-store.ts';
import type { Scope } from '../../server/domain/scope.ts';
import type { FakeApi } from '../fixtures/fake-image-apis.ts';
import type { TestClient, TestServer } from './harness.ts';
import { useRemoteProviders } from './remote-providers.ts';

const base = { style: 'photography', purpose: 'hero_bg' } as const;

describe('svc_drafts asset_generate with the openai and gemini providers (local fakes speaking their wire formats)', () => {
  const p = useRemoteProviders();
  let openai: FakeApi;
  let gemini: FakeApi;
  let srv: TestServer;
  let c: TestClient;
  let credits: CreditStore;
  let scope: Scope;
  let product: string;
  let background: string;

  beforeAll(async () => {
    ({ openai, gemini, srv, c, credits, scope } = p);
    const imp = async (png: Buffer, filename: string) =>
      (await c.call('svc_asset_import', 'import', { data: png.toString('base64'), mime_type: 'image/png', filename })).structured
        .url as string;
    product = await imp(
      await sharp(
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect x="50" y="50" width="200" height="100" fill="#c0392b"/></svg>',
        ),
      )
        .png()
        .toBuffer(),
      'product.png',
    );
    background = await imp(
      await sharp({ create: { width: 640, height: 360, channels: 3, background: '#f4efe6' } })
        .png()
        .toBuffer(),
      'bg.png',
    );
  });
  const assetCount = (): Promise<number> => srv.app.library.assets.maxSeq(scope);

  it('capabilities list the entries of every enabled provider (local default, gemini pro at 2 credits)', async () => {
    const caps = (await c.call('svc_assets', 'capabilities', {})).structured.capabilities as {
      provider: string;
      model: string;
      credits: number;
      default: boolean;
      image_sizes: string[];
      max_reference_images: number;
    }[];
    expect(caps.map((e) => `${e.provider}/${e.model}`)).toEqual([
      'local/atelier-compositor-1',
      'openai/gpt-image-1.5',
      'openai/gpt-image-2',
      'gemini/gemini-3.1-flash-image-preview',
      'gemini/gemini-2.5-flash-image',
      'gemini/gemini-3-pro-image-preview',
      'gemini/gemini-2.5-flash-image-preview',
    ]);
    expect(caps.filter((e) => e.default).map((e) => e.provider)).toEqual(['local']);
    expect(caps.find((e) => e.model === 'gemini-3-pro-image-preview')).toMatchObject({ credits: 2, image_sizes: ['1K', '2K', '4K'] });
    expect(caps.find((e) => e.model === 'gemini-2.5-flash-image')).toMatchObject({ credits: 1, max_reference_images: 3 });
  });

  it('openai generate: JSON request, size mapping, quality, transparent background verified, 1 credit charged', async () => {
    const r = await c.call('svc_drafts', 'asset_generate', {
      ...base,
      prompt: 'a ceramic vase silhouette',
      provider: 'openai',
      quality: 'high',
      transparent: true,
    });
    expect(r.error).toBeUndefined();
    expect(r.structured).toMatchObject({
      provider: 'openai',
      model: 'gpt-image-1.5',
      width: 1536,
      height: 1024,
      format: 'png',
      aspect_ratio: '3:2',
      credit_cost: 1,
      credits_charged: 1,
      has_alpha: true,
      remaining_credits: null,
    });
    const req = openai.requests[0]!;
    expect(req.path).toBe('/v1/images/generations');
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(req.json).toMatchObject({
      model: 'gpt-image-1.5',
      n: 1,
      size: '1536x1024',
      quality: 'high',
      output_format: 'png',
      background: 'transparent',
    });
    expect(String(req.json!.prompt)).toContain('a ceramic vase silhouette');
    expect((await credits.entries(scope)).at(-1)).toMatchObject({
      asset_id: r.structured.asset_id,
      provider: 'openai',
      model: 'gpt-image-1.5',
      credits: 1,
    });

    const flex = await c.call('svc_drafts', 'asset_generate', {
      ...base,
      prompt: 'wide hero',
      provider: 'openai',
      model: 'gpt-image-2',
      aspect_ratio: '21:9',
      image_size: '2K',
      output_format: 'webp',
    });
    expect(openai.requests[1]!.json).toMatchObject({ size: '2048x880', output_format: 'webp' });
    expect(flex.structured).toMatchObject({ width: 2048, height: 880, format: 'webp' });
  });

  it('transparency is checked on the output: an opaque answer is reported, not claimed', async () => {
    openai.image.opaque = true;
    const r = await c.call('svc_drafts', 'asset_generate', {
      ...base,
      prompt: 'logo mark',
      provider: 'openai',
      transparent: true,
      aspect: 'square',
    });
    expect(r.structured).toMatchObject({ transparent_requested: true, has_alpha: false });
    expect(r.text).toContain('NOT transparent');
    expect(r.structured.notes).toEqual(expect.arrayContaining([expect.stringContaining('no transparent pixels')]));
  });

  it('openai edit: multipart with repeated image[] parts and a mask whose transparent pixels mark the edit area of the first image', async () => {
    const white = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#000000' } })
      .composite([{ input: { create: { width: 100, height: 200, channels: 3, background: '#ffffff' } }, left: 200, top: 0 }])
      .png()
      .toBuffer();
    const mask = (
      await c.call('svc_asset_import', 'import', { data: white.toString('base64'), mime_type: 'image/png', filename: 'mask.png' })
    ).structured.url as string;
    const r = await c.call('svc_drafts', 'asset_generate', {
      ...base,
      purpose: 'product_composite',
      prompt: 'put the product on the background',
      provider: 'openai',
      reference_images: [product, background],
      mask_url: mask,
      aspect: 'square',
    });
    expect(r.error).toBeUndefined();
    const req = openai.requests[0]!;
    expect(req.path).toBe('/v1/images/edits');
    expect(req.form!.files.filter((f) => f.name === 'image[]').map((f) => [f.width, f.height])).toEqual([
      [300, 200],
      [640, 360],
    ]);
    const m = req.form!.files.find((f) => f.name === 'mask')!;
    expect(m).toMatchObject({ type: 'image/png', width: 300, height: 200, hasAlpha: true });
    expect(req.form!.fields).toMatchObject({ model: ['gpt-image-1.5'], size: ['1024x1024'], n: ['1'] });
    expect(r.structured).toMatchObject({ operation: 'edit', credits_charged: 1 });
  });

  it('openai 429 is retried honouring retry-after-ms, then succeeds; a 5xx with retry-after 0 too', async () => {
    openai.script.push(
      {
        status: 429,
        headers: { 'retry-after-ms': '30', 'x-ratelimit-remaining-requests': '0' },
        body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
      },
      {
        status: 503,
        headers: { 'retry-after': '0' },
        body: { error: { message: 'The server is overloaded', type: 'server_error', param: null, code: null } },
      },
    );
    const r = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'sunrise', provider: 'openai' });
    expect(r.error).toBeUndefined();
    expect(openai.requests).toHaveLength(3);
    expect(r.structured.notes).toEqual(expect.arrayContaining([expect.stringContaining('after 3 attempts')]));
  });

  it('openai 429 that persists fails with provider_failed after the retries; nothing is stored or charged', async () => {
    for (let i = 0; i < 3; i++)
      openai.script.push({
        status: 429,
        headers: { 'retry-after-ms': '10' },
        body: {
          error: { message: 'You exceeded your current quota', type: 'insufficient_quota', param: null, code: 'insufficient_quota' },
        },
      });
    const before = { assets: await assetCount(), used: await credits.used(scope) };
    const r = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'sunset', provider: 'openai' });
    expect(r.error).toMatchObject({
      code: 'provider_failed',
      details: { provider: 'openai', http_status: 429, attempts: 3, retryable: true },
    });
    expect(openai.requests).toHaveLength(3);
    expect({ assets: await assetCount(), used: await credits.used(scope) }).toEqual(before);
  });

  it('openai moderation_blocked maps to a clear provider_failed on args.prompt and is not retried', async () => {
    openai.script.push({
      status: 400,
      body: {
        error: {
          message: 'Your request was rejected by the safety system.',
          type: 'image_generation_user_error',
          param: null,
          code: 'moderation_blocked',
          moderation_details: { moderation_stage: 'input', categories: ['other'] },
        },
      },
    });
    const r = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'something refused', provider: 'openai' });
    expect(r.error).toMatchObject({
      code: 'provider_failed',
      field: 'args.prompt',
      details: { provider_code: 'moderation_blocked', retryable: false },
    });
    expect(r.error!.message).toContain('safety system');
    expect(openai.requests).toHaveLength(1);
  });

  it('gemini: generateContent with inlineData in and out, imageConfig, pro tier at 2 credits, SynthID recorded, PNG converted to the requested format', async () => {
    const r = await c.call('svc_drafts', 'asset_generate', {
      ...base,
      prompt: 'product on a marble plinth',
      provider: 'gemini',
      model: 'gemini-3-pro-image-preview',
      quality: 'high',
      reference_images: [product],
    });
    expect(r.error).toBeUndefined();
    const req = gemini.requests[0]!;
    expect(req.path).toBe('/v1beta/models/gemini-3-pro-image-preview:generateContent');
    expect(req.headers['x-goog-api-key']).toBe('gm-test');
    const body = req.json as {
      contents: { parts: { text?: string; inlineData?: { mimeType: string; data: string } }[] }[];
      generationConfig: Record<string, unknown>;
    };
    expect(body.generationConfig).toEqual({ responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9', imageSize: '2K' } });
    expect(body.contents[0]!.parts[0]!.text).toContain('product on a marble plinth');
    expect(body.contents[0]!.parts[1]!.inlineData!.mimeType).toBe('image/png');
    expect(r.structured).toMatchObject({
      provider: 'gemini',
      credit_cost: 2,
      credits_charged: 2,
      width: 2048,
      height: 1152,
      format: 'jpeg',
      watermark: expect.stringContaining('SynthID'),
    });
    expect(r.structured.notes).toEqual(expect.arrayContaining(['gemini returned png; converted to jpeg']));

    await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'lite model', provider: 'gemini', model: 'gemini-2.5-flash-image' });
    expect(
      (gemini.requests[1]!.json as { generationConfig: { imageConfig: Record<string, string> } }).generationConfig.imageConfig,
    ).toEqual({ aspectRatio: '16:9' });
    const tooMany = await c.call('svc_drafts', 'asset_generate', {
      ...base,
      prompt: 'x',
      provider: 'gemini',
      model: 'gemini-2.5-flash-image',
      reference_images: [product, product, product, background],
    });
    expect(tooMany.error).toMatchObject({ code: 'invalid_argument', field: 'args.reference_images', details: { max_reference_images: 3 } });
    expect(gemini.requests).toHaveLength(2);
  });

  it('gemini edit with a mask: references and the mask travel as inlineData parts, the prompt says what the mask means', async () => {
    const white = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    const mask = (
      await c.call('svc_asset_import', 'import', { data: white.toString('base64'), mime_type: 'image/png', filename: 'all-white.png' })
    ).structured.url as string;
    const r = await c.call('svc_drafts', 'asset_generate', {
      ...base,
      prompt: 'recolour the box teal',
      provider: 'gemini',
      reference_images: [product],
      mask_url: mask,
    });
    expect(r.error).toBeUndefined();
    const parts = (gemini.requests[0]!.json as { contents: { parts: { text?: string; inlineData?: { mimeType: string } }[] }[] })
      .contents[0]!.parts;
    expect(parts.map((p) => (p.text !== undefined ? 'text' : p.inlineData!.mimeType))).toEqual(['text', 'image/png', 'image/png']);
    expect(parts[0]!.text).toContain('The mask image (last) marks in white the only area to change.');
    expect(r.structured.notes).toEqual(expect.arrayContaining([expect.stringContaining('gemini has no mask parameter')]));
  });

  it('a slow generation sends "still working" progress notifications while the provider works', async () => {
    gemini.delayMs = 450;
    const messages: string[] = [];
    const r = await c.client.callTool(
      { name: 'svc_drafts', arguments: { action: 'asset_generate', args: { ...base, prompt: 'slow', provider: 'gemini' } } },
      { onprogress: (p) => messages.push(String(p.message)) },
    );
    expect(r.isError).toBeFalsy();
    expect(messages.filter((m) => m.includes('still working')).length).toBeGreaterThanOrEqual(2);
    expect(messages.at(-1)).toBe('done');
  });

  it('gemini refusals and text-only answers are clear errors, not successes', async () => {
    const candidate = (parts: unknown[], finishReason: string) => ({
      status: 200,
      body: { candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }] },
    });
    gemini.script.push(candidate([], 'IMAGE_SAFETY'));
    const safety = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'a selfie', provider: 'gemini' });
    expect(safety.error).toMatchObject({
      code: 'provider_failed',
      field: 'args.prompt',
      details: { finish_reason: 'IMAGE_SAFETY', retryable: false },
    });

    gemini.script.push(candidate([{ text: 'Here is an image of a cosy living room.' }], 'STOP'));
    const textOnly = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'living room', provider: 'gemini' });
    expect(textOnly.error).toMatchObject({ code: 'provider_failed', details: { reason: 'NO_IMAGE', finish_reason: 'STOP' } });
    expect(textOnly.error!.message).toContain('text only: "Here is an image of a cosy living room."');

    gemini.script.push(candidate([], 'NO_IMAGE'));
    expect((await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'x', provider: 'gemini' })).error).toMatchObject({
      code: 'provider_failed',
      details: { reason: 'NO_IMAGE', finish_reason: 'NO_IMAGE' },
    });

    gemini.script.push({ status: 200, body: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } } });
    expect((await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'x', provider: 'gemini' })).error).toMatchObject({
      field: 'args.prompt',
      details: { block_reason: 'PROHIBITED_CONTENT' },
    });
    expect(await credits.used(scope)).toBe((await credits.entries(scope)).reduce((n, e) => n + e.credits, 0));
  });

  it('gemini 429 RESOURCE_EXHAUSTED is retried after RetryInfo.retryDelay; a daily quota is not retried', async () => {
    const exhausted = (quotaId: string, delay: string) => ({
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
              violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests', quotaId }],
            },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: delay },
          ],
        },
      },
    });
    gemini.script.push(exhausted('GenerateRequestsPerMinutePerProjectPerModel', '0.05s'));
    const ok = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'retry me', provider: 'gemini' });
    expect(ok.error).toBeUndefined();
    expect(gemini.requests).toHaveLength(2);

    gemini.requests.length = 0;
    gemini.script.push(exhausted('GenerateRequestsPerDayPerProjectPerModel-FreeTier', '37s'));
    const daily = await c.call('svc_drafts', 'asset_generate', { ...base, prompt: 'daily', provider: 'gemini' });
    expect(daily.error).toMatchObject({ code: 'provider_failed', details: { http_status: 429, retryable: false, retry_after_ms: 37000 } });
    expect(gemini.requests).toHaveLength(1);
  });
});
