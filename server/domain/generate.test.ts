import { describe, expect, it } from 'vitest';
import type { CapabilityEntry } from '../../shared/schemas/asset.ts';
import { ServiceError } from '../errors.ts';
import { openAiSize } from '../providers/openai.ts';
import { resolveCapability } from './generation/capability.ts';
import { defaultAspectRatio, defaultImageSize, dimensionsFor } from './media/image-size.ts';
import { placementBox, planPlacements } from './generation/placement.ts';
import { paletteFor, planRecipe } from './generation/procedural.ts';
import { backoffMs, nextDelayMs, parseGoogleDuration, retryAfterMs } from './generation/retry.ts';

describe('image geometry', () => {
  it('maps ratio and size labels to pixels (long edge = size, multiples of 8 or 16, optional pixel cap)', () => {
    expect(dimensionsFor('16:9', '1K')).toEqual({ width: 1024, height: 576 });
    expect(dimensionsFor('9:16', '512px')).toEqual({ width: 288, height: 512 });
    expect(dimensionsFor('1:1', '4K')).toEqual({ width: 4096, height: 4096 });
    expect(dimensionsFor('1:1', '4K', 16, 3840 * 2160)).toEqual({ width: 2880, height: 2880 });
    expect(openAiSize('gpt-image-2', '16:9', '4K')).toBe('3840x2160');
    expect(openAiSize('gpt-image-1', '3:2', '1K')).toBe('1536x1024');
    expect(openAiSize('gpt-image-1', '2:3', '1K')).toBe('1024x1536');
  });
  it('chooses defaults from aspect and quality within what the model supports', () => {
    expect(defaultAspectRatio('landscape', ['1:1', '3:2', '2:3'])).toBe('3:2');
    expect(defaultAspectRatio('portrait', ['1:1', '16:9', '9:16'])).toBe('9:16');
    expect(defaultAspectRatio('landscape', ['1:1', '8:1'])).toBe('8:1');
    expect(defaultImageSize('high', ['1K', '2K'])).toBe('2K');
    expect(defaultImageSize('high', ['1K'])).toBe('1K');
    expect(defaultImageSize('low', ['512px', '1K', '2K'])).toBe('1K');
  });
});

describe('placement words', () => {
  it('reads left/right/center, top/bottom and scale per clause, in subject order', () => {
    const [a, b] = planPlacements('the bottle on the left at 40%; then the box on the right, small', 2);
    expect(a).toMatchObject({ h: 0, v: 0.5, scale: 0.4 });
    expect(b).toMatchObject({ h: 1, scale: 0.35 });
    expect(planPlacements('product top right, scale 0.3', 1)[0]).toMatchObject({ h: 1, v: 0, scale: 0.3 });
    expect(planPlacements('bright studio light', 1)[0]).toMatchObject({ h: 0.5, v: 0.5, words: ['center (default)'] });
  });
  it('spreads subjects without their own clause evenly', () => {
    expect(planPlacements('three jars', 3).map((p) => p.h)).toEqual([0, 0.5, 1]);
  });
  it('fits the subject in scale × canvas, keeps its aspect and stays inside the margins', () => {
    const box = placementBox({ h: 1, v: 1, scale: 0.5, words: [] }, 1000, 500, 400, 200);
    expect(box).toEqual({ left: 1000 - 60 - 500, top: 500 - 30 - 250, width: 500, height: 250 });
    const huge = placementBox({ h: 0, v: 0, scale: 1, words: [] }, 100, 100, 50, 400);
    expect(huge.height).toBe(100);
    expect(huge.top).toBe(0);
  });
});

describe('procedural recipes', () => {
  it('prefers brand colours, then colour words, then a default palette', () => {
    expect(paletteFor('navy stripes', ['#ABC']).colors[0]).toBe('#aabbcc');
    expect(paletteFor('sage and cream gradient', undefined)).toEqual({ colors: ['#9caf88', '#f5efe0'], source: 'prompt' });
    expect(paletteFor('anything', undefined).source).toBe('default');
  });
  it('chooses the recipe from explicit words, else from purpose and style; deterministic seed', () => {
    expect(planRecipe({ prompt: 'pinstripes', style: 'abstract', purpose: 'hero_bg' }).kind).toBe('stripes');
    expect(planRecipe({ prompt: 'soft gradient with grain', style: 'abstract', purpose: 'hero_bg' })).toMatchObject({
      kind: 'linear',
      grain: true,
    });
    expect(planRecipe({ prompt: 'something', style: 'abstract', purpose: 'texture_fill' }).kind).toBe('noise');
    expect(planRecipe({ prompt: 'something', style: 'abstract', purpose: 'decorative_element' }).kind).toBe('blobs');
    expect(planRecipe({ prompt: 'a', style: 'b', purpose: 'c' }).seed).toBe(planRecipe({ prompt: 'a', style: 'b', purpose: 'c' }).seed);
  });
});

describe('retry decisions', () => {
  it('reads retry-after-ms before retry-after (seconds or HTTP date)', () => {
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, 0)).toBe(250);
    expect(retryAfterMs({ 'retry-after': '2' }, 0)).toBe(2000);
    expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 4_000)).toBe(6000);
    expect(retryAfterMs({}, 0)).toBeNull();
    expect(parseGoogleDuration('37s')).toBe(37000);
    expect(parseGoogleDuration('1.5s')).toBe(1500);
    expect(parseGoogleDuration(5)).toBeNull();
  });
  it('uses a hint within the cap, else exponential backoff with jitter', () => {
    expect(nextDelayMs(300, 0, 60_000, 0)).toBe(300);
    expect(nextDelayMs(120_000, 1, 60_000, 0)).toBe(1000);
    expect(backoffMs(10, 0)).toBe(8000);
    expect(backoffMs(0, 0.999)).toBeGreaterThan(370);
  });
});

describe('capability resolution', () => {
  const entries: CapabilityEntry[] = [
    {
      provider: 'local',
      model: 'm0',
      operations: ['generate', 'edit'],
      aspect_ratios: ['1:1', '16:9'],
      image_sizes: ['1K', '2K'],
      output_formats: ['png', 'jpeg'],
      max_reference_images: 16,
      credits: 0,
      default: true,
    },
    {
      provider: 'gemini',
      model: 'lite',
      operations: ['generate', 'edit'],
      aspect_ratios: ['1:1', '16:9'],
      image_sizes: ['1K'],
      output_formats: ['png'],
      max_reference_images: 3,
      credits: 1,
      default: false,
    },
    {
      provider: 'gemini',
      model: 'gen-only',
      operations: ['generate'],
      aspect_ratios: ['1:1'],
      image_sizes: ['1K'],
      output_formats: ['jpeg'],
      max_reference_images: 0,
      credits: 1,
      default: false,
    },
  ];
  const req = { aspect: 'landscape' as const, quality: 'high' as const, transparent: false, referenceCount: 0 };
  const fails = (r: Partial<Parameters<typeof resolveCapability>[1]>): ServiceError => {
    try {
      resolveCapability(entries, { ...req, ...r });
    } catch (e) {
      return e as ServiceError;
    }
    throw new Error('did not fail');
  };
  it('applies defaults: default provider, first model, ratio from aspect, size from quality, jpeg or png', () => {
    expect(resolveCapability(entries, req)).toMatchObject({
      entry: { model: 'm0' },
      operation: 'generate',
      aspectRatio: '16:9',
      imageSize: '2K',
      outputFormat: 'jpeg',
    });
    expect(resolveCapability(entries, { ...req, provider: 'gemini', transparent: true, referenceCount: 2 })).toMatchObject({
      entry: { model: 'lite' },
      operation: 'edit',
      outputFormat: 'png',
    });
  });
  it('names the field and lists the allowed values', () => {
    expect(fails({ provider: 'x' })).toMatchObject({ field: 'args.provider', details: { allowed: ['local', 'gemini'] } });
    expect(fails({ provider: 'gemini', model: 'pro' })).toMatchObject({ field: 'args.model', details: { allowed: ['lite', 'gen-only'] } });
    expect(fails({ provider: 'gemini', referenceCount: 4 })).toMatchObject({
      field: 'args.reference_images',
      details: { max_reference_images: 3 },
    });
    expect(fails({ provider: 'gemini', model: 'gen-only', referenceCount: 1 })).toMatchObject({
      field: 'args.reference_images',
      details: { allowed: ['generate'] },
    });
    expect(fails({ provider: 'gemini', model: 'gen-only', transparent: true })).toMatchObject({ field: 'args.transparent' });
    expect(fails({ transparent: true, output_format: 'jpeg' })).toMatchObject({
      field: 'args.output_format',
      details: { allowed: ['png'] },
    });
    expect(fails({ image_size: '4K' }).message).toBe('"4K" is not an image size of local/m0; allowed: 1K, 2K');
  });
});
