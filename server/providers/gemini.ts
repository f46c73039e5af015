import sharp from 'sharp';
import { z } from 'zod';
import type { CapabilityEntry } from '../../shared/schemas/asset.ts';
import { composePrompt } from '../domain/generation/prompt.ts';
import { isRetryableStatus, parseGoogleDuration } from '../domain/generation/retry.ts';
import { ServiceError } from '../errors.ts';
import { sendWithRetry, type HttpAttempt, type RetryPolicy } from './http-retry.ts';
import type { ImageProvider, ImageRequest, ImageResult, InputImage } from './types.ts';

/**
 * Gemini image models through `POST {base}/models/{model}:generateContent` with `inlineData` parts in
 * and out and `generationConfig.imageConfig {aspectRatio, imageSize}`. Wire format: googleapis/js-genai
 * `src/types.ts` and `src/converters/_models_converters.ts`; errors use the Google RPC envelope with
 * `RetryInfo` (https://cloud.google.com/apis/design/errors). Summarised in research/anchors.md §2.2.
 */

export interface GeminiConfig {
  apiKey: string;
  /** up to and including `/v1beta`, e.g. https://generativelanguage.googleapis.com/v1beta */
  baseUrl: string;
  /** enabled model ids (keys of GEMINI_MODELS), the first is the provider's default */
  models: string[];
  retry: RetryPolicy;
}

export const SYNTHID = 'SynthID: Google applies an invisible watermark to every Gemini image output';

const RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];

/** The model tiers of spec §4.3 with their real ids (anchors §2.2: lifecycle and limits). */
export const GEMINI_MODELS: Record<
  string,
  Omit<CapabilityEntry, 'provider' | 'model' | 'default'> & { tier: string; sendsImageSize: boolean }
> = {
  'gemini-2.5-flash-image': {
    tier: 'lite',
    sendsImageSize: false,
    operations: ['generate', 'edit'],
    aspect_ratios: RATIOS,
    image_sizes: ['1K'],
    output_formats: ['png', 'jpeg', 'webp'],
    max_reference_images: 3,
    credits: 1,
    description:
      'lite: fast and low-cost, fixed ~1024 px output; weak with multiple references and multi-turn editing (best with ≤ 3 references). Outputs carry Google SynthID.',
  },
  'gemini-3.1-flash-image-preview': {
    tier: 'flash',
    sendsImageSize: true,
    operations: ['generate', 'edit'],
    aspect_ratios: [...RATIOS, '1:4', '4:1', '1:8', '8:1'],
    image_sizes: ['512px', '1K', '2K', '4K'],
    output_formats: ['png', 'jpeg', 'webp'],
    max_reference_images: 14,
    credits: 1,
    description: 'flash: general model with 4K output, text rendering and multiple references. Outputs carry Google SynthID.',
  },
  'gemini-3-pro-image-preview': {
    tier: 'pro',
    sendsImageSize: true,
    operations: ['generate', 'edit'],
    aspect_ratios: RATIOS,
    image_sizes: ['1K', '2K', '4K'],
    output_formats: ['png', 'jpeg', 'webp'],
    max_reference_images: 14,
    credits: 2,
    description:
      'pro: 2 credits; for the most complex tasks (many references, exact text, intricate composites). Outputs carry Google SynthID.',
  },
  'gemini-2.5-flash-image-preview': {
    tier: 'legacy',
    sendsImageSize: false,
    operations: ['generate', 'edit'],
    aspect_ratios: RATIOS,
    image_sizes: ['1K'],
    output_formats: ['png', 'jpeg', 'webp'],
    max_reference_images: 3,
    credits: 1,
    description: 'legacy preview model; use the lite model gemini-2.5-flash-image instead. Outputs carry Google SynthID.',
  },
};

const PartSchema = z
  .object({
    text: z.string().optional(),
    thought: z.boolean().optional(),
    inlineData: z.object({ mimeType: z.string(), data: z.string() }).optional(),
  })
  .passthrough();
const ResponseSchema = z
  .object({
    candidates: z
      .array(
        z
          .object({
            content: z.object({ parts: z.array(PartSchema).optional() }).optional(),
            finishReason: z.string().optional(),
            finishMessage: z.string().optional(),
          })
          .passthrough(),
      )
      .optional(),
    promptFeedback: z.object({ blockReason: z.string().optional(), blockReasonMessage: z.string().optional() }).passthrough().optional(),
    modelVersion: z.string().optional(),
  })
  .passthrough();
const RpcErrorSchema = z.object({
  error: z.object({
    code: z.number().optional(),
    message: z.string().default(''),
    status: z.string().optional(),
    details: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
});

const REFUSALS = new Set([
  'SAFETY',
  'PROHIBITED_CONTENT',
  'BLOCKLIST',
  'SPII',
  'RECITATION',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Retry hint from `RetryInfo.retryDelay`; a per-day quota violation is not retried in-process. */
function classify(a: HttpAttempt): { retry: boolean; hintMs: number | null } {
  const parsed = RpcErrorSchema.safeParse(safeJson(a.body));
  const details = parsed.success ? (parsed.data.error.details ?? []) : [];
  const retryInfo = details.find(
    (d) =>
      d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo' ||
      (typeof d['@type'] === 'string' && d['@type'].endsWith('google.rpc.RetryInfo')),
  );
  const quota = details.find((d) => typeof d['@type'] === 'string' && d['@type'].endsWith('google.rpc.QuotaFailure'));
  const daily = JSON.stringify(quota?.violations ?? []).includes('PerDay');
  return { retry: isRetryableStatus(a.status) && !daily, hintMs: parseGoogleDuration(retryInfo?.retryDelay) };
}

function httpError(a: HttpAttempt & { attempts: number }): ServiceError {
  const parsed = RpcErrorSchema.safeParse(safeJson(a.body));
  const e = parsed.success ? parsed.data.error : undefined;
  const c = classify(a);
  const base = { provider: 'gemini', http_status: a.status, provider_status: e?.status ?? null, attempts: a.attempts };
  if (a.status === 429) {
    return new ServiceError(
      'provider_failed',
      null,
      `gemini quota or rate limit (429 ${e?.status ?? ''}) after ${a.attempts} attempt(s): ${e?.message ?? ''}${c.retry ? '' : ' (daily quota: not retried)'}; try later or use another provider; nothing was charged`,
      {
        details: { ...base, retryable: c.retry, retry_after_ms: c.hintMs },
      },
    );
  }
  if (a.status === 400 && /api key/i.test(e?.message ?? '')) {
    return new ServiceError(
      'provider_failed',
      null,
      `gemini rejected the server's API key: ${e?.message}; ask the operator to check ATELIER_GEMINI_API_KEY`,
      { details: { ...base, retryable: false } },
    );
  }
  return new ServiceError(
    'provider_failed',
    null,
    `gemini failed with HTTP ${a.status} ${e?.status ?? ''}: ${e?.message || a.body.slice(0, 200)}; nothing was charged`,
    { details: { ...base, retryable: isRetryableStatus(a.status) } },
  );
}

/** Inline input limit per file (Vertex doc for Gemini 3 Pro Image, anchors §2.2): 7 MB. */
const MAX_INLINE_BYTES = 7 * 1000 * 1000;
const INLINE_MIMES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif']);

/** An input image as an `inlineData` part: sent as is when accepted, else re-encoded as JPEG ≤ 3072 px. */
async function inlineImage(img: InputImage): Promise<{ mimeType: string; data: string }> {
  if (INLINE_MIMES.has(img.mime) && img.bytes.length <= MAX_INLINE_BYTES) return { mimeType: img.mime, data: img.bytes.toString('base64') };
  const jpeg = await sharp(img.bytes)
    .rotate()
    .resize(3072, 3072, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 90 })
    .toBuffer();
  return { mimeType: 'image/jpeg', data: jpeg.toString('base64') };
}

/** The Gemini image provider; enabled when an API key is configured. */
export function createGeminiProvider(cfg: GeminiConfig): ImageProvider {
  const entries: CapabilityEntry[] = cfg.models.map((m) => {
    const { tier: _t, sendsImageSize: _s, ...rest } = GEMINI_MODELS[m]!;
    return { provider: 'gemini', model: m, ...rest };
  });
  const base = cfg.baseUrl.replace(/\/+$/, '');
  return {
    id: 'gemini',
    capabilities: () => entries,
    async generate(req: ImageRequest, opts): Promise<ImageResult> {
      const spec = GEMINI_MODELS[req.model]!;
      const text = composePrompt({ ...req, referenceCount: req.references.length, hasMask: req.mask !== null });
      const parts: Record<string, unknown>[] = [{ text }];
      for (const img of req.references) parts.push({ inlineData: await inlineImage(img) });
      // Gemini has no mask parameter: the mask goes in as one more image, described in the prompt.
      if (req.mask) parts.push({ inlineData: { mimeType: 'image/png', data: req.mask.png.toString('base64') } });
      const imageConfig: Record<string, string> = { aspectRatio: req.aspectRatio };
      if (spec.sendsImageSize) imageConfig.imageSize = req.imageSize === '512px' ? '512' : req.imageSize;
      const body = JSON.stringify({
        contents: [{ role: 'user', parts }],
        generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig },
      });
      const url = `${base}/models/${encodeURIComponent(req.model)}:generateContent`;
      opts.onProgress?.(`gemini ${req.model}: generating (${req.aspectRatio}${imageConfig.imageSize ? `, ${imageConfig.imageSize}` : ''})`);
      const res = await sendWithRetry(
        'gemini',
        url,
        () => ({ method: 'POST', headers: { 'x-goog-api-key': cfg.apiKey, 'content-type': 'application/json' }, body }),
        cfg.retry,
        classify,
        opts,
      );
      if (res.status < 200 || res.status >= 300) throw httpError(res);
      const parsed = ResponseSchema.safeParse(safeJson(res.body));
      if (!parsed.success)
        throw new ServiceError(
          'provider_failed',
          null,
          'gemini returned a response that is not a GenerateContentResponse; nothing was charged',
          { details: { provider: 'gemini', retryable: true } },
        );
      const r = parsed.data;
      if (r.promptFeedback?.blockReason) {
        throw new ServiceError(
          'provider_failed',
          'args.prompt',
          `gemini blocked the prompt (${r.promptFeedback.blockReason})${r.promptFeedback.blockReasonMessage ? `: ${r.promptFeedback.blockReasonMessage}` : ''}; rephrase it; nothing was charged`,
          {
            details: { provider: 'gemini', block_reason: r.promptFeedback.blockReason, retryable: false },
          },
        );
      }
      const cand = r.candidates?.[0];
      const reason = cand?.finishReason ?? null;
      if (reason && REFUSALS.has(reason)) {
        throw new ServiceError(
          'provider_failed',
          'args.prompt',
          `gemini refused to produce the image (finishReason ${reason})${cand?.finishMessage ? `: ${cand.finishMessage}` : ''}; rephrase the prompt or change the references; nothing was charged`,
          {
            details: { provider: 'gemini', reason, finish_reason: reason, retryable: false },
          },
        );
      }
      const outParts = (cand?.content?.parts ?? []).filter((p) => !p.thought);
      const image = outParts.find((p) => p.inlineData && p.inlineData.mimeType.startsWith('image/'));
      const said = outParts
        .map((p) => p.text ?? '')
        .join(' ')
        .trim();
      if (!image?.inlineData) {
        throw new ServiceError(
          'provider_failed',
          null,
          `gemini returned no image (finishReason ${reason ?? 'none'})${said ? `; it answered with text only: "${said.slice(0, 200)}"` : ''}. Ask explicitly for an image or try another model; nothing was charged`,
          {
            details: { provider: 'gemini', reason: 'NO_IMAGE', finish_reason: reason, text: said.slice(0, 500), retryable: true },
          },
        );
      }
      const notes = [`gemini ${req.model} (${spec.tier}) ${req.operation}; returned ${image.inlineData.mimeType}`];
      if (req.mask)
        notes.push(
          'gemini has no mask parameter: the mask was sent as an extra image and described in the prompt; the model may change pixels outside it',
        );
      if (res.attempts > 1) notes.push(`succeeded after ${res.attempts} attempts (retried on quota or server error)`);
      return {
        bytes: Buffer.from(image.inlineData.data, 'base64'),
        params: {
          endpoint: 'generateContent',
          model: req.model,
          imageConfig,
          images: req.references.length,
          mask: req.mask !== null,
          attempts: res.attempts,
          model_version: r.modelVersion ?? null,
        },
        watermark: SYNTHID,
        notes,
      };
    },
  };
}
