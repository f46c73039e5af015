import sharp from 'sharp';
import { z } from 'zod';
import type { CapabilityEntry } from '../../shared/schemas/asset.ts';
import { dimensionsFor } from '../domain/media/image-size.ts';
import { composePrompt } from '../domain/generation/prompt.ts';
import { ServiceError } from '../errors.ts';
import { headerRetry, sendWithRetry, type RetryPolicy } from './http-retry.ts';
import type { ImageProvider, ImageRequest, ImageResult } from './types.ts';

/**
 * OpenAI Images API client (`POST /v1/images/generations` JSON, `POST /v1/images/edits` multipart).
 * Wire format: openai/openai-node `src/resources/images.ts` (repeated `image[]` parts, `mask` whose
 * alpha-0 pixels mark the edit area of the first image, `b64_json` results) and retry policy of
 * `src/client.ts`; summarised in research/anchors.md §2.1.
 */

export interface OpenAiConfig {
  apiKey: string;
  /** up to and including `/v1`, e.g. https://api.openai.com/v1 */
  baseUrl: string;
  /** enabled model ids, the first is the default */
  models: string[];
  retry: RetryPolicy;
}

const FIXED_SIZES: Record<string, string> = { '1:1': '1024x1024', '3:2': '1536x1024', '2:3': '1024x1536' };
const ACCEPTED = new Set(['image/png', 'image/jpeg', 'image/webp']);
const FLEX_MODELS = new Set(['gpt-image-2', 'gpt-image-2-2026-04-21']);
/** gpt-image-2 limit: both edges divisible by 16, at most 3840×2160 px (anchors §2.1). */
const FLEX_MAX_PIXELS = 3840 * 2160;

/** Capability entry of a known OpenAI image model. */
export function openAiEntry(model: string): CapabilityEntry {
  const flex = FLEX_MODELS.has(model);
  return {
    provider: 'openai',
    model,
    operations: ['generate', 'edit'],
    aspect_ratios: flex ? ['1:1', '3:2', '2:3', '4:3', '3:4', '16:9', '9:16', '21:9'] : ['1:1', '3:2', '2:3'],
    image_sizes: flex ? ['1K', '2K', '4K'] : ['1K'],
    output_formats: ['png', 'jpeg', 'webp'],
    max_reference_images: 16,
    credits: 1,
    description: flex
      ? 'OpenAI GPT image model with free sizes (edges divisible by 16, ≤ 3840×2160 px); transparent background is a preview feature.'
      : 'OpenAI GPT image model: 1024×1024, 1536×1024, 1024×1536; transparent background with png/webp.',
  };
}

/** The `size` parameter for a ratio and size label. */
export function openAiSize(model: string, ratio: string, imageSize: string): string {
  if (!FLEX_MODELS.has(model)) return FIXED_SIZES[ratio] ?? 'auto';
  const d = dimensionsFor(ratio, imageSize === '4K' ? '3840px' : imageSize, 16, FLEX_MAX_PIXELS);
  return `${d.width}x${d.height}`;
}

const ImagesResponseSchema = z.object({
  data: z
    .array(
      z.object({ b64_json: z.string().min(1).optional(), url: z.string().optional(), revised_prompt: z.string().nullable().optional() }),
    )
    .min(1),
  background: z.string().optional(),
  output_format: z.string().optional(),
  size: z.string().optional(),
  quality: z.string().optional(),
});
const ErrorBodySchema = z.object({
  error: z
    .object({
      message: z.string().default(''),
      type: z.string().nullable().optional(),
      param: z.string().nullable().optional(),
      code: z.string().nullable().optional(),
    })
    .passthrough(),
});

function providerError(status: number, body: string, attempts: number, headers: Record<string, string>): ServiceError {
  const parsed = ErrorBodySchema.safeParse(safeJson(body));
  const err = parsed.success ? parsed.data.error : undefined;
  const code = err?.code ?? null;
  const base = { provider: 'openai', http_status: status, provider_code: code, attempts, request_id: headers['x-request-id'] ?? null };
  if (code === 'moderation_blocked' || code === 'content_policy_violation') {
    return new ServiceError(
      'provider_failed',
      'args.prompt',
      `openai refused the request: its safety system blocked it (${code}). Rephrase the prompt or use other reference images; nothing was charged.`,
      {
        details: {
          ...base,
          retryable: false,
          moderation_details: (err as Record<string, unknown> | undefined)?.moderation_details ?? null,
        },
      },
    );
  }
  if (status === 401 || status === 403) {
    return new ServiceError(
      'provider_failed',
      null,
      `openai rejected the server's API key (HTTP ${status}): ${err?.message ?? 'unauthorized'}; ask the operator to check ATELIER_OPENAI_API_KEY`,
      { details: { ...base, retryable: false } },
    );
  }
  if (status === 429) {
    return new ServiceError(
      'provider_failed',
      null,
      `openai rate limit or quota (HTTP 429) still exceeded after ${attempts} attempt(s): ${err?.message ?? ''} Try again later or use another provider; nothing was charged.`.trim(),
      {
        details: {
          ...base,
          retryable: true,
          retry_after: headers['retry-after-ms'] ? `${headers['retry-after-ms']} ms` : (headers['retry-after'] ?? null),
        },
      },
    );
  }
  return new ServiceError(
    'provider_failed',
    null,
    `openai failed with HTTP ${status}${attempts > 1 ? ` after ${attempts} attempts` : ''}: ${err?.message || body.slice(0, 200)}; nothing was charged`,
    {
      details: { ...base, param: err?.param ?? null, retryable: status >= 500 },
    },
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** OpenAI mask: the first image's size, alpha 0 where our matte is white (the editable area). */
async function openAiMask(matte: Buffer, width: number, height: number): Promise<Buffer> {
  const m = await sharp(matte).extractChannel(0).raw().toBuffer();
  const alpha = Buffer.from(m.map((v) => 255 - v));
  return sharp({ create: { width, height, channels: 3, background: '#000000' } })
    .joinChannel(alpha, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
}

/** The OpenAI Images provider; enabled when an API key is configured. */
export function createOpenAiProvider(cfg: OpenAiConfig): ImageProvider {
  const entries = cfg.models.map((m) => openAiEntry(m));
  const base = cfg.baseUrl.replace(/\/+$/, '');
  return {
    id: 'openai',
    capabilities: () => entries,
    async generate(req: ImageRequest, opts): Promise<ImageResult> {
      const size = openAiSize(req.model, req.aspectRatio, req.imageSize);
      const prompt = composePrompt({ ...req, referenceCount: req.references.length, hasMask: false });
      const params: Record<string, string> = {
        model: req.model,
        prompt,
        n: '1',
        size,
        quality: req.quality,
        output_format: req.outputFormat,
        background: req.transparent ? 'transparent' : 'auto',
      };
      const auth = { authorization: `Bearer ${cfg.apiKey}` };
      let build: () => RequestInit;
      let url: string;
      if (req.operation === 'generate') {
        url = `${base}/images/generations`;
        const body = JSON.stringify({ ...params, n: 1 });
        build = () => ({ method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
      } else {
        url = `${base}/images/edits`;
        // With a mask, the first image is sent upright as PNG so the mask's size matches it exactly.
        const first = req.mask ? await sharp(req.references[0]!.bytes).rotate().png().toBuffer() : null;
        // The edits endpoint takes png, webp or jpg: other inputs (gif, avif, tiff) are re-encoded as PNG.
        const images = await Promise.all(
          req.references.map(async (img, i) =>
            i === 0 && first
              ? { bytes: first, mime: 'image/png' }
              : ACCEPTED.has(img.mime)
                ? img
                : { bytes: await sharp(img.bytes).rotate().png().toBuffer(), mime: 'image/png' },
          ),
        );
        const mask = req.mask ? await openAiMask(req.mask.png, req.mask.width, req.mask.height) : null;
        build = () => {
          const form = new FormData();
          for (const [k, v] of Object.entries(params)) form.append(k, v);
          images.forEach((img, i) =>
            form.append('image[]', new Blob([new Uint8Array(img.bytes)], { type: img.mime }), `image-${i + 1}.${img.mime.split('/')[1]}`),
          );
          if (mask) form.append('mask', new Blob([new Uint8Array(mask)], { type: 'image/png' }), 'mask.png');
          return { method: 'POST', headers: auth, body: form };
        };
      }
      opts.onProgress?.(
        `openai ${req.model}: ${req.operation === 'generate' ? 'generating' : `editing with ${req.references.length} image(s)`} (${size})`,
      );
      const res = await sendWithRetry('openai', url, build, cfg.retry, headerRetry, opts);
      if (res.status < 200 || res.status >= 300) throw providerError(res.status, res.body, res.attempts, res.headers);
      const parsed = ImagesResponseSchema.safeParse(safeJson(res.body));
      const item = parsed.success ? parsed.data.data[0] : undefined;
      if (!parsed.success || !item?.b64_json) {
        throw new ServiceError('provider_failed', null, 'openai returned HTTP 200 without a b64_json image; nothing was charged', {
          details: { provider: 'openai', retryable: true },
        });
      }
      const notes = [`openai ${req.model} ${req.operation} at size ${size}, quality ${req.quality}`];
      if (res.attempts > 1) notes.push(`succeeded after ${res.attempts} attempts (retried on rate limit or server error)`);
      return {
        bytes: Buffer.from(item.b64_json, 'base64'),
        params: {
          endpoint: req.operation === 'generate' ? 'images/generations' : 'images/edits',
          model: req.model,
          size,
          quality: req.quality,
          output_format: req.outputFormat,
          background: params.background,
          images: req.references.length,
          mask: req.mask !== null,
          attempts: res.attempts,
        },
        watermark: null,
        notes,
        revisedPrompt: item.revised_prompt ?? null,
      };
    },
  };
}
