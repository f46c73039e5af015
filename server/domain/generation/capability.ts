import type { CapabilityEntry } from '../../../shared/schemas/asset.ts';
import { ServiceError } from '../../errors.ts';
import { defaultAspectRatio, defaultImageSize } from '../media/image-size.ts';

/** The request values that a capability entry constrains (spec §4.3, §4.4). */
export interface CapabilityRequest {
  provider?: string | undefined;
  model?: string | undefined;
  aspect: 'landscape' | 'square' | 'portrait';
  quality: 'low' | 'medium' | 'high';
  transparent: boolean;
  aspect_ratio?: string | undefined;
  image_size?: string | undefined;
  output_format?: string | undefined;
  referenceCount: number;
}

/** The entry chosen and the effective values, every one of them allowed by the entry. */
export interface ResolvedRequest {
  entry: CapabilityEntry;
  operation: 'generate' | 'edit';
  aspectRatio: string;
  imageSize: string;
  outputFormat: string;
}

function notAllowed(field: string, value: string, allowed: string[], what: string): ServiceError {
  return new ServiceError('invalid_argument', field, `"${value}" is not ${what}; allowed: ${allowed.join(', ')}`, { details: { allowed } });
}

/**
 * Choose the capability entry for a request and check every constrained value against it before any
 * spend. Defaults: the entry marked `default` (else the first) when `provider` is omitted; the
 * provider's default (else first) model when `model` is omitted; ratio from `aspect`; size from
 * `quality`; format png when transparent, else jpeg, else the first listed.
 * @param entries capability entries of the enabled providers, in registry order
 * @throws ServiceError invalid_argument naming the field, with `details.allowed`
 */
export function resolveCapability(entries: CapabilityEntry[], req: CapabilityRequest): ResolvedRequest {
  const providers = [...new Set(entries.map((e) => e.provider))];
  const provider = req.provider ?? (entries.find((e) => e.default) ?? entries[0])?.provider;
  if (provider === undefined || !providers.includes(provider)) {
    throw notAllowed('args.provider', req.provider ?? '', providers, 'an enabled provider for this workspace');
  }
  const ofProvider = entries.filter((e) => e.provider === provider);
  let entry: CapabilityEntry | undefined;
  if (req.model !== undefined) {
    entry = ofProvider.find((e) => e.model === req.model);
    if (!entry)
      throw notAllowed(
        'args.model',
        req.model,
        ofProvider.map((e) => e.model),
        `a model of provider ${provider}`,
      );
  } else {
    entry = ofProvider.find((e) => e.default) ?? ofProvider[0]!;
  }
  const operation = req.referenceCount > 0 ? 'edit' : 'generate';
  const label = `${entry.provider}/${entry.model}`;
  if (!entry.operations.includes(operation)) {
    const field = operation === 'edit' ? 'args.reference_images' : 'args.prompt';
    throw new ServiceError(
      'invalid_argument',
      field,
      `${label} does not support ${operation}; its operations: ${entry.operations.join(', ')}`,
      { details: { allowed: entry.operations } },
    );
  }
  if (req.referenceCount > entry.max_reference_images) {
    throw new ServiceError(
      'invalid_argument',
      'args.reference_images',
      `holds ${req.referenceCount} images; ${label} accepts at most ${entry.max_reference_images}`,
      {
        details: { max_reference_images: entry.max_reference_images },
      },
    );
  }
  if (req.aspect_ratio !== undefined && !entry.aspect_ratios.includes(req.aspect_ratio)) {
    throw notAllowed('args.aspect_ratio', req.aspect_ratio, entry.aspect_ratios, `an aspect ratio of ${label}`);
  }
  if (req.image_size !== undefined && !entry.image_sizes.includes(req.image_size)) {
    throw notAllowed('args.image_size', req.image_size, entry.image_sizes, `an image size of ${label}`);
  }
  if (req.output_format !== undefined && !entry.output_formats.includes(req.output_format)) {
    throw notAllowed('args.output_format', req.output_format, entry.output_formats, `an output format of ${label}`);
  }
  const alphaFormats: string[] = entry.output_formats.filter((f) => f === 'png' || f === 'webp');
  if (req.transparent && req.output_format !== undefined && !alphaFormats.includes(req.output_format)) {
    throw notAllowed('args.output_format', req.output_format, alphaFormats, 'a format with an alpha channel (transparent: true)');
  }
  const outputFormat =
    req.output_format ?? (req.transparent ? alphaFormats[0] : entry.output_formats.includes('jpeg') ? 'jpeg' : entry.output_formats[0]);
  if (outputFormat === undefined) {
    throw new ServiceError(
      'invalid_argument',
      'args.transparent',
      `${label} has no output format with an alpha channel; its formats: ${entry.output_formats.join(', ')}`,
      { details: { allowed: entry.output_formats } },
    );
  }
  return {
    entry,
    operation,
    aspectRatio: req.aspect_ratio ?? defaultAspectRatio(req.aspect, entry.aspect_ratios),
    imageSize: req.image_size ?? defaultImageSize(req.quality, entry.image_sizes),
    outputFormat,
  };
}
